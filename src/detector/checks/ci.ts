// CI/CD tampering: pipeline definitions (GitHub Actions, GitLab CI, Jenkins, CircleCI, Azure, Bitbucket, Buildkite,
// Drone, ...) written or edited so that they leak the pipeline's secrets or run fetched code, security workflows
// removed, CI secrets and variables set from this machine, deploy pipelines started remotely, and this machine
// registered as a runner for someone's pipelines. Editing a workflow for ordinary reasons (a new step, a cache key,
// a Node version) stays ordinary: what asks is what the written text does. Pure.
import type { Word } from '../engine/words.js';
import { show, when, type Check, type CheckContext } from './types.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';
import type { ForgeCheck } from '../programs/forge/call.js';
import type { SedCheck } from '../programs/sed/call.js';

/** Files a CI service reads as its pipeline (its steps run with the repository's secrets). */
const CI_CONFIG =
  /(^|\/)(\.github\/(workflows|actions)\/.+|\.gitlab-ci\.ya?ml|\.gitlab\/ci\/.+|Jenkinsfile[\w.-]*|\.circleci\/.+|azure-pipelines[\w.-]*\.ya?ml|\.azure-pipelines\/.+|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml|\.drone\.ya?ml|\.buildkite\/.+|cloudbuild[\w.-]*\.ya?ml|buildspec[\w.-]*\.ya?ml|\.woodpecker(\.ya?ml|\/.+)|appveyor\.ya?ml|\.tekton\/.+|codefresh\.ya?ml|\.semaphore\/.+)$/;

export const isCiConfig = (path: string): boolean => CI_CONFIG.test(path.replace(/^["']|["']$/g, ''));

/** What a pipeline holds that must not leave it: secrets, job tokens, the whole environment. */
const SECRET =
  /secrets\.|\$\{?\{?\s*[\w.]*(TOKEN|SECRET|PASSW(OR)?D|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\b|\bCI_JOB_TOKEN\b|(^|[\s;|&("'{`])(env|printenv|set)(\s*\||\s*$|\s*>)|\/proc\/self\/environ|GITHUB_TOKEN|ACTIONS_RUNTIME_TOKEN|ACTIONS_ID_TOKEN/i;
/** Where it could go: a network tool or address, or an encoding that gets it past the log's masking. */
const SINK =
  /\b(curl|wget|nc|ncat|netcat|socat|telnet|scp|rsync|ssh|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|fetch|requests\.|urllib|http\.client)\b|https?:\/\/|\/dev\/tcp\/|\bbase(32|64)\b|\bxxd\b|\brev\b|\bod\b/i;
/** Code fetched and run by the pipeline. */
const FETCH_RUN =
  /\b(curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^\n;|]*\\?\|\s*(sudo\s+)?(ba|z|da|k)?sh\b|\b(curl|wget)\b[^\n;|]*\\?\|\s*(sudo\s+)?(python3?|node|perl|ruby|iex|pwsh|powershell)\b|\b(bash|sh|zsh|python3?)\s+<\(\s*(curl|wget)\b/i;
/** Triggers and permissions that hand the pipeline's secrets or write access to code from forks. */
const UNSAFE_TRIGGER = /\bpull_request_target\b|permissions:\s*write-all\b|\bworkflow_run\b/;

/** Judges text written into a pipeline definition. */
export function ciText(text: string, detail: string, ctx: CheckContext): void {
  if ((SECRET.test(text) && SINK.test(text)) || FETCH_RUN.test(text) || UNSAFE_TRIGGER.test(text))
    ctx.add('ci-tampering', detail);
}

/** A write of known (or, when `text` is undefined, unknown) content onto `target`. */
export function ciConfigWrite(target: Word, text: string | undefined, detail: string, ctx: CheckContext): void {
  if (text !== undefined && isCiConfig(target.text)) ciText(text, detail, ctx);
}

/** Workflows that check the code: scanners, dependency review, signing. Deleting one turns a check off. */
const SECURITY_WORKFLOW =
  /(codeql|security|scan|dependency-review|scorecard|audit|secret|gitleaks|trufflehog|sast|dast|trivy|snyk|semgrep|sonar|sigstore|cosign|provenance|slsa|osv|vuln)[^/]*$/i;

export function securityRemoved(targets: Word[], detail: string, ctx: CheckContext): void {
  if (targets.some((t) => isCiConfig(t.text) && SECURITY_WORKFLOW.test(t.text))) ctx.add('ci-tampering', detail);
}

/** sed -i / perl -pi / yq -i / jq (into a file): the script or expression is what gets written. */
const editor: Check = (cmd, _io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  const inPlace = words.some((w) => /^(-[a-zA-Z]*i\w*|--in-place|--inplace)(=.*)?$/.test(w));
  if (inPlace && words.some(isCiConfig)) ciText(words.filter((w) => !isCiConfig(w)).join('\n'), show(cmd), ctx);
};

/** sed -i on a pipeline definition: its scripts are what gets written. */
export const sedCiEdit: SedCheck = ({ inPlace, scripts, files }, cmd, _io, ctx) => {
  if (inPlace && files.some((f) => isCiConfig(f.text))) ciText(scripts.join('\n'), show(cmd), ctx);
};

/** Starting a pipeline that deploys, releases or publishes, or that names production. */
const DEPLOYING = /deploy|release|publish|prod(uction)?\b|\bprd\b|\blive\b|rollout|promote|ship/i;

/** This machine's own credentials: SSH and GPG keys, cloud and cluster credentials, git and netrc passwords. */
const MACHINE_CREDENTIAL =
  /\.ssh\/|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.aws\/|\.kube\/|kubeconfig|\.gnupg|\.git-credentials|\.netrc|\.docker\/config|gcloud\/|\$\{?(AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|GOOGLE_APPLICATION_CREDENTIALS|AZURE_CLIENT_SECRET|ARM_CLIENT_SECRET|SSH_PRIVATE_KEY)\b/;
const UNMASKED = /(^|\s)--(masked|protected|hidden)(=false|=0)(\s|$)|(^|\s)--visibility(=|\s+)all(\s|$)/;

/** `gh secret|variable set`, `glab variable set|update`, `gh workflow run deploy`. */
export const forgePipeline: ForgeCheck = ({ path }, cmd, io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  const [group, verb] = path;
  // A pipeline secret set from this machine's own credentials (SSH keys, cloud keys) or left unmasked: every job and
  // everyone who can edit a workflow there can read it. A token made for the pipeline (`gh secret set NPM_TOKEN <
  // token.txt`) is ordinary.
  if (
    /^(secret|variable)s?$/.test(group ?? '') &&
    /^(set|create|update|new|add|import)$/.test(verb ?? '') &&
    (words.some((w) => MACHINE_CREDENTIAL.test(w)) ||
      MACHINE_CREDENTIAL.test(io.stdinFile?.text ?? '') ||
      UNMASKED.test(words.join(' ')))
  )
    ctx.add('ci-tampering', show(cmd));
  // gh workflow run, glab ci run, gh run rerun: a pipeline that deploys, releases or names production.
  if (
    /^(workflow|ci|run|pipeline)s?$/.test(group ?? '') &&
    /^(run|trigger|rerun|retry|dispatch|start)$/.test(verb ?? '') &&
    DEPLOYING.test(words.join(' '))
  )
    ctx.add('ci-deploy', show(cmd));
};

/** An HTTP write to a CI service's build, pipeline or dispatch endpoint that deploys, releases or names production. */
const CI_TRIGGER_URL = /\/(builds|pipelines?|dispatches|trigger|jobs\/[^/]+\/(build|run)|buildWithParameters|build)\b/i;
export const ciTriggerRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const url = req.urls.find((w) => /^https?:\/\//.test(w));
  if (!url || !req.writes || !CI_TRIGGER_URL.test(url)) return;
  if (/^(localhost|127\.|\[::1\])/.test(url.replace(/^https?:\/\//, ''))) return;
  if (DEPLOYING.test(cmd.args.map((a) => a.text).join(' '))) ctx.add('ci-deploy', show(cmd));
};

/**
 * Registering this machine as a CI runner (`./config.sh --url ... --token ...` of GitHub's runner, `gitlab-runner
 * register`, `buildkite-agent start --token`): whoever controls those pipelines runs code here from then on.
 */
const runner = when('ci-runner', (words, cmd) => {
  const name = cmd.written.replace(/^.*\//, '');
  const url = words.some((w) => /^--url(=|$)/.test(w)) && words.some((w) => /^--(token|pat)(=|$)/.test(w));
  const agent = /^(config\.(sh|cmd)|woodpecker-agent|drone-runner-\w+|circleci-runner|act_runner|forgejo-runner)$/;
  return (
    (agent.test(name) && url) ||
    (cmd.name === 'gitlab-runner' && /^(register|install|start|run)$/.test(words[0] ?? '')) ||
    (cmd.name === 'buildkite-agent' && words[0] === 'start')
  );
});

judges(import.meta.url, {
  'perl yq': editor,
  'gitlab-runner buildkite-agent config.sh config.cmd woodpecker-agent act_runner forgejo-runner circleci-runner':
    runner,
});
