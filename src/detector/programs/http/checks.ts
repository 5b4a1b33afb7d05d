// Every judgement of an HTTP client's request (curl, wget, httpie, xh) on one reading of it (request.ts); each lives
// with its threat class's checks. Start here when one is judged wrongly (`npm run detector:who -- 'curl ...'`). Pure.
import { agentRulesRequest } from '../../checks/agent-rules.js';
import { ciTriggerRequest } from '../../checks/ci.js';
import { containerApiRequest } from '../../checks/container.js';
import { bulkDeleteRequest } from '../../checks/data.js';
import { requestExfil } from '../../checks/exfil.js';
import { responseWrites } from '../../checks/files.js';
import { forgeRequest } from '../../checks/forge.js';
import { askpassRequest } from '../../checks/option-commands.js';
import { deleteEndpointRequest } from '../../checks/lifecycle.js';
import { outboundRequest } from '../../checks/outbound.js';
import { repoApiRequest } from '../../checks/repo-api.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { HTTP_CLIENTS, httpRequest, type RequestCheck } from './request.js';

/** What a request is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly RequestCheck[] = [
  responseWrites, // where the response is written (files.ts: the write rules)
  agentRulesRequest, // an agent's rules replaced by a download (agent-safety)
  requestExfil, // credentials in a body, upload, URL or header (exfiltration)
  bulkDeleteRequest, // DELETE of every index (sql-drop)
  deleteEndpointRequest, // a write to an endpoint named for deleting data (resource-delete)
  containerApiRequest, // the container API written to over its socket (container-escape)
  repoApiRequest, // a code host's protection settings changed (repo-protection)
  forgeRequest, // a forge API written to in the user's name (forge-write)
  outboundRequest, // a message sent or money moved (send-message, payment)
  ciTriggerRequest, // a deploying pipeline started (ci-deploy)
  askpassRequest, // wget's password command, judged as a command line
];

const request = familyCheck((cmd) => {
  const req = httpRequest(cmd);
  return req && !req.offline ? req : undefined;
}, JUDGEMENTS);

judges(import.meta.url, { [HTTP_CLIENTS.join(' ')]: request });
