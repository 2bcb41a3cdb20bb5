import { notYetCommand } from './command.ts';

export const syncCommand = notYetCommand('sync', 'fleetsync sync');
