// Hermes agent's toolset names: the ones with a tether counterpart are aliases (used with a one-line notice), the
// others are refused naming what tether has instead. Workflow-safe (data only).

/** `use`: the tether toolsets the name stands for; without it the name is refused and `why` says what to do. */
interface HermesToolset {
  use?: readonly string[];
  why?: string;
}

const gateway: HermesToolset = { use: ['tether-gateway'] };

export const HERMES_TOOLSETS: Readonly<Record<string, HermesToolset>> = {
  'hermes-cli': { use: ['tether-cli'] },
  'hermes-acp': { use: ['tether-acp'] },
  'hermes-batch': { use: ['tether-batch'] },
  'hermes-cron': { use: ['tether-batch'] },
  'hermes-api-server': { use: ['tether-batch'] },
  'hermes-gateway': gateway,
  'hermes-telegram': gateway,
  'hermes-discord': gateway,
  'hermes-whatsapp': gateway,
  'hermes-slack': gateway,
  'hermes-signal': gateway,
  'hermes-bluebubbles': gateway,
  'hermes-homeassistant': gateway,
  'hermes-email': gateway,
  'hermes-mattermost': gateway,
  'hermes-matrix': gateway,
  'hermes-dingtalk': gateway,
  'hermes-feishu': gateway,
  'hermes-weixin': gateway,
  'hermes-qqbot': gateway,
  'hermes-wecom': gateway,
  'hermes-wecom-callback': gateway,
  'hermes-yuanbao': gateway,
  'hermes-sms': gateway,
  'hermes-webhook': { use: ['web', 'vision', 'clarify'] },
  coding: { use: ['tether-coding'] },
  safe: { use: ['web', 'vision', 'image_gen'] },
  search: { use: ['web'], why: "tether's web toolset has web_extract beside web_search" },
  skills: { why: 'tether has no skills tools: give instructions in the task, or keep them with the memory tool' },
  tts: { why: 'tether has no text-to-speech tool' },
  cronjob: { why: 'tether has no cron tool: schedules are made with `tether schedule`' },
  homeassistant: {
    why: 'tether has no Home Assistant tools: connect an MCP server for it (mcp_servers in config.yaml)',
  },
  kanban: { why: 'tether has no kanban tools: sub-agents are delegate_task (toolset delegation)' },
  computer_use: { why: 'tether has no desktop control: the browser toolset drives a headless Chromium' },
  video: { why: 'tether has no video tools' },
  video_gen: { why: 'tether has no video tools; images are image_gen' },
  x_search: { why: 'tether has no X search: use web' },
  discord: { why: 'tether has no messaging-platform tools' },
  discord_admin: { why: 'tether has no messaging-platform tools' },
  feishu_doc: { why: 'tether has no messaging-platform tools' },
  feishu_drive: { why: 'tether has no messaging-platform tools' },
  yuanbao: { why: 'tether has no messaging-platform tools' },
  spotify: { why: 'tether has no Spotify tools: connect an MCP server for it' },
  desktop_ui: { why: 'tether has no desktop GUI' },
  project: { why: 'tether has no desktop GUI: a run works in its --cwd' },
  bot_room: { why: 'tether has no group chat' },
  context_engine: { why: 'tether has no context-engine tools' },
  moa: { why: 'tether has no mixture-of-agents tool: delegate_task runs sub-agents' },
};
