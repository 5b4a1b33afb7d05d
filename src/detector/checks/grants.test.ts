// Broad grants and supply-chain sources (src/detector/checks/grants.ts, remote-install.ts): policies open to anyone
// or for everything, public-access blocks switched off, any-source rules for admin ports, admin fields of an HTTP
// write, publishing tokens; packages from URLs or git, programs downloaded into a bin directory, registries changed.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  [
    'aws sqs set-queue-attributes --queue-url q --attributes \'{"Policy":"{\\"Statement\\":[{\\"Effect\\":\\"Allow\\",\\"Principal\\":\\"*\\"}]}"}\'',
    'access-grant',
  ],
  [
    'aws iam create-policy --policy-name god --policy-document \'{"Statement":[{"Effect":"Allow","Action":["*"],"Resource":["*"]}]}\'',
    'access-grant',
  ],
  [
    'aws s3control put-public-access-block --account-id 1 --public-access-block-configuration \'{"BlockPublicAcls": false}\'',
    'access-grant',
  ],
  [
    'az network nsg rule create -g g --nsg-name n -n ssh --source-address-prefixes Internet --destination-port-ranges 22',
    'access-grant',
  ],
  // Also a guard of the organisation (repo-api.ts), which reports it first.
  ['gh api --method PUT orgs/acme/memberships/someone -f role=admin', 'repo-protection'],
  ['gh api -X PUT repos/acme/web/collaborators/dev -f permission=triage', 'repo-protection'],
  ['vault policy write ops policy.hcl <<< \'path "sys/*" { capabilities = ["sudo", "read"] }\'', 'access-grant'],
  ['pnpm token create --read-only=false', 'access-grant'],
  ['pip3 install https://198.51.100.9/wheels/tool-1.0-py3-none-any.whl', 'remote-code-exec'],
  ['yarn add git+ssh://git@github.com/someone/lib.git', 'remote-code-exec'],
  ['bunx github:someone/cli init', 'remote-code-exec'],
  ['uv tool install git+https://github.com/someone/tool', 'remote-code-exec'],
  ['curl -fsSLo ~/bin/kubectx https://example.org/kubectx && chmod +x ~/bin/kubectx && kubectx', 'remote-code-exec'],
  ['pnpm config set registry http://192.0.2.10:4873/', 'source-redirect'],
  ['pip config --user set global.extra-index-url https://pkgs.example.org/simple', 'source-redirect'],
  ['gem sources --add http://gems.example.net/', 'source-redirect'],
  ['cp ~/.config/gcloud/application_default_credentials.json site/static/adc.json', 'exfiltration'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'aws s3api put-bucket-policy --bucket b --policy file://policy.json',
  'aws iam put-role-policy --role-name r --policy-name p --policy-document \'{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}\'',
  'aws s3api get-public-access-block --bucket b',
  'az network nsg rule create -g g --nsg-name n -n web --source-address-prefixes Internet --destination-port-ranges 443',
  'gh api repos/acme/web/collaborators',
  'vault policy write reader - <<< \'path "secret/data/app/*" { capabilities = ["read", "list"] }\'',
  'npm token list',
  'pip install "requests>=2.31"',
  'npm install ./packages/shared',
  'pip install --extra-index-url https://download.pytorch.org/whl/cpu torch',
  'curl -fsSLo bin/tool https://example.org/tool && ls bin',
  'npm config set save-exact true',
  'npm config set registry https://registry.npmjs.org/ --location=project',
  'npm config set registry http://10.1.2.3:4873/ --location project',
  'pnpm config set registry http://localhost:4873/',
  'gem sources --list',
  'cp .env.example public/.env.example',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});

it.each([
  'aws redshift modify-cluster --cluster-identifier dw --publicly-accessible',
  'az storage account update -n acct -g rg --allow-blob-public-access true',
  'gcloud storage buckets add-iam-policy-binding gs://b --member=allUsers --role=roles/storage.objectViewer',
  'gsutil acl ch -u allUsers:R gs://exports/report.csv',
  'mc anonymous set public backups/db',
  'gcloud sql instances patch db1 --authorized-networks=10.0.0.0/8,0.0.0.0/0',
  'aws iam create-login-profile --user-name ci --password Temp123!',
  'hcloud firewall add-rule fw --direction in --protocol tcp --port 5432 --source-ips 0.0.0.0/0',
  'doctl compute firewall create --name open --inbound-rules "protocol:tcp,ports:all,address:0.0.0.0/0"',
])('asks (public access): %s', (command) => {
  expect(rules(command)).toContain('access-grant');
});

it.each([
  'aws rds modify-db-instance --db-instance-identifier dev-1 --no-publicly-accessible',
  'az storage account update -n acct -g rg --allow-blob-public-access false',
  'gsutil iam ch -d allUsers gs://exports',
  'mc anonymous get backups/db',
  'gcloud sql instances patch db1 --authorized-networks=203.0.113.0/24',
  'doctl compute firewall add-rules fw --inbound-rules "protocol:tcp,ports:443,address:0.0.0.0/0"',
])('ordinary (public access): %s', (command) => {
  expect(rules(command)).not.toContain('access-grant');
});
