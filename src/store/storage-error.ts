/**
 * A failure of the storage under the database rather than of the data, recognised by its code:
 * the errno of a file-system call (a full disk, a read-only file system, a file over the size
 * limit, a quota), DuckDB's own error type for I/O ("IO Error: …", "FATAL Error: …" after which
 * DuckDB refuses further writes), or the errno DuckDB reports inside another type (a commit whose
 * WAL write failed is "TransactionContext Error: Failed to commit: Could not write file "…": File
 * too large"). DuckDB's errors carry no errno field: its I/O messages end with the C library's
 * description of the errno (strerror), which STRERROR maps back to the code. The whole cause
 * chain is looked at, so an error wrapped by the store (E_DB with a cause) is recognised too.
 */

/** errno codes of a storage that cannot take more writes. */
export const STORAGE_ERRNO = new Set(['ENOSPC', 'EROFS', 'EFBIG', 'EDQUOT', 'EIO']);
/** strerror(3) of each code, as glibc and musl word it (the tail of DuckDB's I/O messages). */
const STRERROR: Record<string, string> = {
  'no space left on device': 'ENOSPC',
  'read-only file system': 'EROFS',
  'file too large': 'EFBIG',
  'disk quota exceeded': 'EDQUOT',
  'quota exceeded': 'EDQUOT',
  'input/output error': 'EIO',
  'i/o error': 'EIO',
};
/** DuckDB's exception types (the message's `<Type> Error:` prefix) that are storage failures. */
export const DUCKDB_STORAGE_TYPES = new Set(['IO', 'FATAL']);

/** DuckDB's exception type of an error from @duckdb/node-api (`IO`, `Constraint`, …), or null. */
export function duckdbErrorType(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const m = /^([A-Za-z]+(?: [A-Za-z]+)*) Error: /.exec(e.message);
  return m ? m[1]!.toUpperCase() : null;
}

/** DuckDB's buffer pool was full ("Out of Memory Error: … used"): a report, a commit. */
export const isOutOfMemory = (e: unknown): boolean => duckdbErrorType(e) === 'OUT OF MEMORY';

/**
 * The storage failure's code (`EFBIG`, `DuckDB IO`, …) anywhere in `e`'s cause chain (a cause
 * may be a list, as inTransaction's "rollback failed" gives), or null.
 */
export function storageFailure(e: unknown, depth = 0): string | null {
  if (e === null || e === undefined || depth > 8) return null;
  if (Array.isArray(e)) {
    for (const x of e) {
      const found = storageFailure(x, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && STORAGE_ERRNO.has(code)) return code;
  const type = duckdbErrorType(e);
  if (type) {
    const errno = STRERROR[/: ([^:"]+)$/.exec((e as Error).message.trim())?.[1]?.toLowerCase() ?? ''];
    if (errno) return errno;
    if (DUCKDB_STORAGE_TYPES.has(type)) return `DuckDB ${type}`;
  }
  return typeof e === 'object' ? storageFailure((e as { cause?: unknown }).cause, depth + 1) : null;
}
