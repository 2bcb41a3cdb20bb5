import { notYetCommand } from './command.ts';

export const simulateCommand = notYetCommand('simulate', 'fleetsync simulate');
