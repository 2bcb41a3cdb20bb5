import { notYetCommand } from './command.ts';

export const demoCommand = notYetCommand('demo', 'fleetsync demo');
