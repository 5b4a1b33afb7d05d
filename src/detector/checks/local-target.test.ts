// Destructive commands aimed at an explicitly local or disposable target, or only rehearsed (local-target.ts), stay
// ordinary; the same commands with no explicit target, a remote host or a production name keep asking.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  'aws --endpoint-url http://127.0.0.1:4566 dynamodb delete-table --table-name Carts',
  'aws s3 rm s3://scratch --recursive --endpoint-url=http://localhost:4572',
  'redis-cli -h localhost FLUSHALL',
  'mongosh "mongodb://127.0.0.1:27018/orders_dev" --eval "db.dropDatabase()"',
  'psql postgres://me@localhost:5433/shop -c "TRUNCATE orders"',
  'dropdb -h 127.0.0.1 billing_test',
  'psql -d inventory_test -c "DELETE FROM items"',
  'kubectl --context k3d-sandbox delete deploy api',
  'helm uninstall web --kube-context docker-desktop',
  'k3d cluster delete scratch',
  'MIX_ENV=test mix ecto.reset',
  'NODE_ENV=test npx knex migrate:rollback --all',
  'DATABASE_URL=mysql://root@127.0.0.1/app_test npx prisma migrate reset --force',
  'rails db:drop --env=development',
  'wrangler d1 execute shop --local --command "DROP TABLE carts"',
  'sqlite3 test/fixtures/seed.db "DELETE FROM users"',
  'docker compose -f compose.ci.yml down --volumes',
  'rsync -rn --delete build/ web@host:/var/www/',
  'pulumi destroy --stack dev --preview-only',
  'az group delete -n scratch --what-if',
  'mc rm --recursive --force local/scratch',
])('%s stays ordinary', (command) => {
  expect(rules(command)).toEqual([]);
});

it.each([
  ['redis-cli FLUSHALL', 'redis-flush'],
  ['dropdb billing', 'sql-drop'],
  ['redis-cli -h cache.internal.acme.io FLUSHDB', 'redis-flush'],
  ['psql -h db.acme.io -d shop_test -c "DROP TABLE users"', 'sql-drop'],
  ['kubectl --context gke_acme_us_main delete ns payments', 'kubectl-delete'],
  ['aws --endpoint-url http://localhost:4566 --profile prod s3 rb s3://invoices --force', 'cloud-storage-delete'],
  ['sqlite3 app.db "DROP TABLE users"', 'sql-drop'],
  ['sqlite3 ~/Library/Messages/chat.db "DELETE FROM message"', 'sql-delete-all'],
  ['RAILS_ENV=production bin/rails db:reset', 'resource-delete'],
  ['multipass delete --all --purge', 'resource-delete'],
  ['mc rm --recursive --force backup/scratch', 'cloud-storage-delete'],
])('%s still asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});
