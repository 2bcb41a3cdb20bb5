import { notYetCommand } from './command.ts';

export const exportCommand = notYetCommand('export', 'fleetsync export');
