// Production given through the environment, migration tools taken back to nothing, mirror syncs that delete
// (data-targets.ts), and SQL that empties a table in other words (data.ts); their ordinary look-alikes.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['MIX_ENV=prod mix ecto.rollback --all', 'production-change'],
  ['DATABASE_URL=postgres://app@db-prod.acme.io/app npx knex migrate:latest', 'production-change'],
  ['npx sequelize-cli db:migrate:undo:all --url "$PROD_DB_URL"', 'production-change'],
  ['env-cmd -f .env.production -- npx typeorm migration:revert', 'production-change'],
  ['flyway -url=jdbc:mysql://db.acme.io/shop clean', 'resource-delete'],
  ['dbmate --url "$DATABASE_URL" drop', 'resource-delete'],
  ['migrate -source file://m -database "$DB" down --all', 'resource-delete'],
  ['liquibase --changelog-file=c.xml dropAll', 'resource-delete'],
  ['gsutil -m rsync -r -d ./site gs://www-bucket', 'resource-delete'],
  ['mc mirror --overwrite --remove ./assets s3/site', 'resource-delete'],
  ['rclone sync ./build prod-r2:www', 'resource-delete'],
  ['npx prisma db push --accept-data-loss', 'resource-delete'],
  ['clickhouse-client -q "DELETE FROM events WHERE 1 = 1"', 'sql-delete-all'],
  ['mysql -e "ALTER TABLE audit ENGINE = BLACKHOLE"', 'sql-truncate'],
])('%s asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'RAILS_ENV=production bin/rails assets:precompile',
  'NODE_ENV=production npm run build',
  'RAILS_ENV=production bin/rails db:migrate:status',
  'flyway -url=jdbc:mysql://db.acme.io/shop info',
  'goose -dir migrations postgres "$DSN" status',
  'migrate -path m -database "$DB" down 1',
  'rclone sync ./photos gdrive:backup/photos',
  'gsutil -m rsync -r ./site gs://www-bucket',
  'psql -c "DELETE FROM sessions WHERE expires_at < now()"',
])('%s stays ordinary', (command) => {
  expect(rules(command)).toEqual([]);
});
