// Read-only commands (`tether approvals`, `list`, `status`) answer from the lean reader first, and fall back to the
// SDK's client, loaded only then, for whatever the lean path cannot answer or when it fails. Worker-only.
import type { Client } from '@temporalio/client';
import { LeanReader } from '../temporal/lean/lean-reader.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { ensureTemporal } from './dev-server-start.js';

/**
 * `lean` answers, or returns undefined for "not here". Any failure of it (server unreachable, an unknown run, bad
 * credentials, a surprise in a reply) also goes to `full`, which meets the same condition and explains it the way
 * every other command does. Only reads come here, so asking twice is harmless.
 */
export async function withFastReads<T>(
  lean: (reader: LeanReader, settings: TemporalSettings) => Promise<T | undefined>,
  full: (client: Client, settings: TemporalSettings) => Promise<T>,
): Promise<T> {
  const settings = await ensureTemporal();
  if (process.env.TETHER_LEAN_READS !== '0') {
    const reader = LeanReader.open(settings);
    try {
      const answer = await lean(reader, settings);
      if (answer !== undefined) return answer;
    } catch {
      // the full client below meets it again and names the setting at fault
    } finally {
      reader.close();
    }
  }
  const { withTemporal } = await import('./temporal-client.js');
  return withTemporal(full);
}
