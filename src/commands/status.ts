import { notYetCommand } from './command.ts';

export const statusCommand = notYetCommand('status', 'fleetsync status');
