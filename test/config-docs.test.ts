/**
 * docs/configuration.md's variable tables are generated from the config schema
 * (scripts/gen-config-docs.ts). The file must be what the generator writes now, so a variable added
 * to the schema (or read outside it) without `npm run docs:config` fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../src/config.ts';
import { loadEnvFile } from '../src/env-file.ts';
import {
  BEGIN,
  CONFIG_DOC,
  END,
  ENV_EXAMPLE,
  currentBlock,
  describeSchema,
  envExample,
  renderBlock,
  replaceBlock,
  variablesOutsideSchema,
} from '../scripts/gen-config-docs.ts';

describe('docs/configuration.md', () => {
  it('holds exactly what npm run docs:config writes (run it after changing src/config.ts)', () => {
    const doc = readFileSync(CONFIG_DOC, 'utf8');
    expect(replaceBlock(doc, currentBlock())).toBe(doc);
  });

  it('gives every variable of the schema a doc line', () => {
    const missing = describeSchema()
      .filter((v) => !v.doc?.trim())
      .map((v) => v.name);
    expect(missing, 'add .describe("…") to these in src/config.ts').toEqual([]);
    expect(describeSchema().map((v) => v.name)).toEqual(Object.keys(configSchema.shape));
  });
});

describe('the generator', () => {
  it('reads default, range and doc line through pipes, defaults and enums', () => {
    const schema = z.object({
      HOURS: z
        .string()
        .default('48')
        .pipe(z.string().regex(/^[0-9]+$/))
        .pipe(z.coerce.number())
        .pipe(z.number().int().min(1))
        .pipe(z.number().max(8760))
        .describe('Stale after this many hours.'),
      MODE: z.enum(['small', 'fast']).default('small').describe('Heap.'),
      WINDOW: z.coerce.number().int().min(100).default(60000).describe('Window | ms.'),
      URL: z.url().optional(),
    });
    expect(describeSchema(schema)).toEqual([
      { name: 'HOURS', default: '48', allowed: '1–8760', doc: 'Stale after this many hours.' },
      { name: 'MODE', default: 'small', allowed: '`small`, `fast`', doc: 'Heap.' },
      { name: 'WINDOW', default: '60000', allowed: '≥ 100', doc: 'Window | ms.' },
      { name: 'URL', default: null, allowed: 'URL', doc: undefined },
    ]);
    const block = renderBlock(describeSchema(schema), new Map());
    expect(block.startsWith(BEGIN) && block.endsWith(END)).toBe(true);
    expect(block).toContain('| `WINDOW` | `60000` | ≥ 100 | Window \\| ms. |');
    expect(block).toContain('| `URL` | — | URL | (no doc line in the schema) |');
    expect(block).not.toContain('Read outside the schema');
  });

  it('finds variables read outside the schema, with the files that read them', () => {
    const found = variablesOutsideSchema(
      [
        {
          path: 'src/a.ts',
          text: "const q = env.FLEETSYNC_QUEUE_URL?.trim();\nnum('FLEETSYNC_JOB_RETRIES', 3);",
        },
        {
          path: 'src/b.ts',
          text: "env['FLEETSYNC_QUEUE_URL'];\nenv.FLEET_PASSWORD;\n// see FLEETSYNC_NOT_READ",
        },
      ],
      new Set(['FLEET_PASSWORD']),
    );
    expect([...found]).toEqual([
      ['FLEETSYNC_JOB_RETRIES', ['src/a.ts']],
      ['FLEETSYNC_QUEUE_URL', ['src/a.ts', 'src/b.ts']],
    ]);
  });

  it('refuses a document without exactly one generated block', () => {
    expect(() => replaceBlock('# no markers', 'x')).toThrow(/expected one/);
    expect(replaceBlock(`a\n${BEGIN}\nold\n${END}\nb`, 'NEW')).toBe('a\nNEW\nb');
  });
});

describe('.env.example', () => {
  it('holds exactly what npm run docs:config writes: every variable of the schema, once', () => {
    const text = readFileSync(ENV_EXAMPLE, 'utf8');
    expect(text).toBe(envExample());
    const keys = [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(keys).toEqual(Object.keys(configSchema.shape));
  });

  it('sets only what a new user fills in, and the file loads as an environment file', () => {
    const set = readFileSync(ENV_EXAMPLE, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z]/.test(l));
    expect(set).toEqual([
      'FLEET_COUNTRY=za',
      'FLEET_USERNAME=',
      'FLEET_PASSWORD=',
      'FLEET_TIMEZONE=Africa/Johannesburg',
    ]);
    const env: Record<string, string | undefined> = { FLEETSYNC_ENV_FILE: ENV_EXAMPLE };
    loadEnvFile({ env, cwd: '/' });
    expect(env.FLEET_COUNTRY).toBe('za');
    expect(env.FLEET_TIMEZONE).toBe('Africa/Johannesburg');
    expect(env.FLEETSYNC_PORT).toBeUndefined();
  });

  it('shows a default, a range and an example as a user reads them', () => {
    const schema = z.object({
      A_SET: z.string().optional().meta({ example: 'x', set: true }).describe('Set `me`.'),
      B_RANGE: z.coerce.number().int().min(1).max(9).default(3).describe('A number.'),
    });
    expect(envExample(schema).split('\n\n').slice(1)).toEqual([
      '# Set me.\nA_SET=x',
      '# A number. (default 3; allowed 1–9)\n# B_RANGE=3\n',
    ]);
  });
});
