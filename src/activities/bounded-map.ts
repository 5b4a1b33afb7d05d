// A Map held within a number of entries and, optionally, a total size, dropping the least recently used first: the
// shape of the worker's small caches. Worker-only (pure, but only the worker's caches use it).

export interface BoundedMapLimits<V> {
  /** Entries held at most. */
  maxEntries: number;
  /** Total of `sizeOf` over the entries held at most (no size limit without it). */
  maxSize?: number;
  /** An entry's size, measured once when it is set. */
  sizeOf?: (value: V) => number;
}

/**
 * Oldest first when iterated; `set` and `get` make an entry the newest, `peek` does not. A set that goes over a limit
 * drops the oldest entries until within it again, the new one too if it alone is over the size limit.
 */
export class BoundedMap<K, V> {
  /** A Map iterates in insertion order, so deleting and setting again is what makes an entry the newest. */
  private readonly map = new Map<K, { value: V; size: number }>();
  private total = 0;

  constructor(private readonly limits: BoundedMapLimits<V>) {}

  get size(): number {
    return this.map.size;
  }

  /** The sum of the entries' sizes (0 without `sizeOf`). */
  get totalSize(): number {
    return this.total;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** The value without counting it as a use. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  /** The value, counted as a use: it is now the newest entry. */
  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  /** Sets `key` as the newest entry, then drops the oldest while over a limit. */
  set(key: K, value: V): this {
    this.delete(key);
    const size = this.limits.sizeOf?.(value) ?? 0;
    this.map.set(key, { value, size });
    this.total += size;
    for (const k of this.map.keys()) {
      if (this.map.size <= this.limits.maxEntries && this.total <= (this.limits.maxSize ?? Infinity)) break;
      this.delete(k);
    }
    return this;
  }

  delete(key: K): boolean {
    const entry = this.map.get(key);
    if (!entry) return false;
    this.map.delete(key);
    this.total -= entry.size;
    return true;
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  /** Oldest first; deleting while iterating is safe, as with a Map. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.map) yield [key, entry.value];
  }

  *values(): IterableIterator<V> {
    for (const entry of this.map.values()) yield entry.value;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }
}
