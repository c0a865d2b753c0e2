#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx parley ...` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
const code = await runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
