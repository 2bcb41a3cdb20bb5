#!/usr/bin/env node
// Installed entry point: registers tsx, then runs the TypeScript CLI.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';

register();
process.argv.splice(1, 1, new URL('../src/cli.ts', import.meta.url).pathname);
await import(pathToFileURL(process.argv[1]).href);
