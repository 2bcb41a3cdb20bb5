// Types of bin/stamp.js (plain JavaScript: the entry loads it before any TypeScript).
export interface SourceStamp {
  files: { path: string; size: number; mtimeMs: number; sha256: string }[];
}
export function sourceStamp(srcDir: string): SourceStamp;
export function stampMatches(srcDir: string, recorded: unknown): boolean;
