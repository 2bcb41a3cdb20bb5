import { notYetCommand } from './command.ts';

export const serveCommand = notYetCommand('serve', 'fleetsync serve');
