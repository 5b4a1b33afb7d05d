// Data made to expire or stop being kept (lifecycle.ts); ordinary retention settings and reads stay ordinary.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['rpk topic alter-config orders --set retention.ms=500', 'data-lifecycle'],
  ['az monitor log-analytics workspace update -g rg -n ws --retention-time 1', 'data-lifecycle'],
  ['gcloud logging buckets update _Default --location=global --retention-days=1', 'data-lifecycle'],
  ['influx bucket update --id 0a1b --retention 1h', 'data-lifecycle'],
  [
    'aws s3api put-bucket-lifecycle-configuration --bucket b --lifecycle-configuration file://x.json --cli-input-json \'{"Expiration":{"Days":0}}\'',
    'data-lifecycle',
  ],
  ['mongosh "$URI" --eval \'db.audit.createIndex({at:1},{expireAfterSeconds:60})\'', 'data-lifecycle'],
  ['clickhouse-client --query "ALTER TABLE t MODIFY TTL d + toIntervalDay(1)"', 'data-lifecycle'],
  [
    'aws dynamodb update-time-to-live --table-name Users --time-to-live-specification Enabled=true,AttributeName=signup',
    'data-lifecycle',
  ],
  ['redis-cli -h cache.acme.io CONFIG SET appendonly no', 'data-lifecycle'],
  ['nomad operator snapshot restore backup.snap', 'data-lifecycle'],
  ['curl -XPOST https://search.acme.io/orders/_delete_by_query -d \'{"query":{"match_all":{}}}\'', 'resource-delete'],
  ['curl -X POST https://prom.acme.io/api/v1/admin/tsdb/delete_series?match[]=up', 'resource-delete'],
])('%s asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'aws logs put-retention-policy --log-group-name /app --retention-in-days 90',
  'kafka-configs.sh --bootstrap-server k:9092 --describe --entity-type topics --entity-name t',
  'redis-cli -h localhost CONFIG SET appendonly no',
  'curl -H "Cache-Control: max-age=0" https://example.com/',
  'curl https://search.acme.io/orders/_search -d \'{"query":{"match_all":{}}}\'',
  'consul snapshot save today.snap',
  'echo "retention.ms=1" >> notes.txt',
])('%s stays ordinary', (command) => {
  expect(rules(command)).toEqual([]);
});
