// SQL handed to resource CLIs and restores that drop first (src/detector/checks/resource.ts, data.ts), and containers
// removed by name (ordinary) next to their volumes or a computed list (resource-delete).
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['turso db shell acme --query "DROP TABLE users"', 'sql-drop'],
  ['wrangler d1 execute main --remote --command="TRUNCATE TABLE orders"', 'sql-truncate'],
  ['bq query --nouse_legacy_sql "DELETE FROM shop.orders"', 'sql-delete-all'],
  ['gcloud spanner databases execute-sql db --instance i --sql "UPDATE accounts SET balance = 0"', 'sql-update-all'],
  ['pg_restore -c -d shop latest.dump', 'sql-drop'],
  ['mongorestore --uri "$MONGO_URL" --drop ./dump', 'sql-drop'],
  ['docker container rm -v cache', 'resource-delete'],
  ['podman rm -f $(podman ps -aq)', 'resource-delete'],
  ['docker rm -f web-1', 'resource-delete'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'wrangler d1 execute main --command "SELECT count(*) FROM users"',
  'bq query "SELECT 1"',
  'pg_restore -l latest.dump',
  'pg_restore -d app_dev latest.dump',
  'docker rm proj-web-1 proj-worker-1',
  'podman container rm devdb',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
