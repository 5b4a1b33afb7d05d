// A background process's output: a bounded byte log addressed by absolute offsets, oldest bytes dropped first. Worker-only.

export class OutputLog {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Absolute offset of the first byte still kept. */
  private first = 0;

  constructor(private readonly limitBytes = 1024 * 1024) {}

  /** Bytes written in all, dropped ones included. */
  get total(): number {
    return this.first + this.kept;
  }

  /** Offset of the oldest byte still kept. */
  get start(): number {
    return this.first;
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept > this.limitBytes && this.chunks.length > 0) {
      const excess = this.kept - this.limitBytes;
      const head = this.chunks[0]!;
      if (head.length <= excess) {
        this.chunks.shift();
        this.kept -= head.length;
        this.first += head.length;
      } else {
        this.chunks[0] = head.subarray(excess);
        this.kept -= excess;
        this.first += excess;
      }
    }
  }

  /** Up to `limit` bytes from `offset` (clamped to what is kept), and the offset after them. */
  read(offset: number, limit: number): { data: Buffer; from: number; next: number } {
    const from = Math.min(Math.max(offset, this.first), this.total);
    const all = Buffer.concat(this.chunks);
    const data = all.subarray(from - this.first, Math.min(from - this.first + Math.max(0, limit), all.length));
    return { data, from, next: from + data.length };
  }
}
