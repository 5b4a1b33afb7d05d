// `tether cluster setup`: registers tether's search attributes on the namespace of an existing Temporal cluster
// through its operator service, once; says what it did. Worker-only.
import type { Command } from 'commander';
import { TETHER_SEARCH_ATTRIBUTES } from '../common/search-attributes.js';
import { setupSearchAttributes } from '../visibility/cluster-setup.js';
import { withTemporal } from './temporal-client.js';

export function addClusterCommand(program: Command): void {
  const cluster = program.command('cluster').description('Prepare a Temporal cluster for tether');
  cluster
    .command('setup')
    .description("Register tether's search attributes on the namespace (TEMPORAL_NAMESPACE); safe to run again")
    .action(async () => {
      const line = await withTemporal(async (client, settings) => {
        const { added } = await setupSearchAttributes(client.connection.operatorService, settings);
        const where = `namespace '${settings.namespace}' on ${settings.address}`;
        return added.length > 0
          ? `${where}: registered ${added.length} search attributes: ${added.join(', ')}`
          : `${where}: all ${TETHER_SEARCH_ATTRIBUTES.length} search attributes are registered already; nothing to do`;
      });
      process.stdout.write(`${line}\n`);
    });
}
