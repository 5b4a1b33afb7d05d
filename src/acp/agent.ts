// `tether acp`'s protocol side: the ACP v1 agent (initialize, session/new, session/load, session/prompt,
// session/cancel), keeping one AcpSession per editor session. Worker-only.
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type McpServer } from '@agentclientprotocol/sdk';
import { isAbsolute } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { newWorkflowId } from '../temporal/workflow-id.js';
import { AcpSession, promptText, type SessionDeps } from './session.js';
import type { EditorMcpServers } from './mcp-servers.js';

interface AcpAgentDeps extends SessionDeps {
  mcp: EditorMcpServers;
  /** Toolsets every ACP run gets (tether-acp and config.yaml's MCP servers); the session's own MCP servers are added. */
  toolsets: string[];
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd) || !existsSync(cwd) || !statSync(cwd).isDirectory())
    throw RequestError.invalidParams({ cwd }, `cwd: ${cwd} is not an absolute path to a directory`);
}

export function acpAgent(deps: AcpAgentDeps): AgentApp {
  const sessions = new Map<string, AcpSession>();
  const session = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw RequestError.sessionNotFound(id);
    return s;
  };
  const toolsetsFor = async (servers: readonly McpServer[]): Promise<string[]> => [
    ...deps.toolsets,
    ...(await deps.mcp.connect(servers)),
  ];
  const modelOrError = (): string => {
    try {
      return deps.model();
    } catch (err) {
      throw RequestError.internalError(undefined, (err as Error).message);
    }
  };
  const sessionDeps: SessionDeps = { ...deps, model: modelOrError };

  return agent({ name: 'tether' })
    .onRequest('initialize', () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
      agentInfo: { name: 'tether', title: 'tether', version: '0.1.0' },
      authMethods: [],
    }))
    .onRequest('session/new', async ({ params, client }) => {
      checkCwd(params.cwd);
      const id = newWorkflowId();
      sessions.set(id, new AcpSession(id, params.cwd, await toolsetsFor(params.mcpServers), client, sessionDeps));
      deps.log.info(
        { session: id, cwd: params.cwd, mcpServers: params.mcpServers.map((s) => s.name) },
        'ACP session created',
      );
      return { sessionId: id };
    })
    .onRequest('session/load', async ({ params, client }) => {
      // A session id is the id of the run it started: reattach to it while it runs.
      checkCwd(params.cwd);
      const state = await AcpSession.stateOf(deps.client, params.sessionId);
      if (!state || state.status !== 'running') throw RequestError.sessionNotFound(params.sessionId);
      const s = new AcpSession(
        params.sessionId,
        params.cwd,
        await toolsetsFor(params.mcpServers),
        client,
        sessionDeps,
        params.sessionId,
      );
      sessions.set(params.sessionId, s);
      await s.reattach(state);
      return {};
    })
    .onRequest('session/prompt', async ({ params, signal }) => {
      const s = session(params.sessionId);
      const text = promptText(params.prompt);
      if (text === '') throw RequestError.invalidParams(undefined, 'the prompt has no text');
      return { stopReason: await s.prompt(text, signal) };
    })
    .onNotification('session/cancel', async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    });
}
