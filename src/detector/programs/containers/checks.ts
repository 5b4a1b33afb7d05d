// Every judgement of a container CLI (docker, podman, nerdctl, ctr, buildah, docker-compose) on one reading of its
// command line (call.ts); each lives with its threat class's checks. Start here when one is judged wrongly. Pure.
import { containerRun } from '../../checks/container.js';
import { containerExecAndPrune } from '../../checks/infra.js';
import { imagePush } from '../../checks/publish.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { everyContainerStopped } from '../../checks/shared-processes.js';
import { containerCall, type ContainerCheck } from './call.js';

/** What a container command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly ContainerCheck[] = [
  containerRun, // a container given the host: privileges, namespaces, mounts (container-escape); a miner image
  containerExecAndPrune, // the command `exec` runs, judged as itself; images, volumes and data pruned (docker-prune)
  imagePush, // an image sent to a registry (package-publish)
  everyContainerStopped, // every container on the machine killed or stopped (mass-kill)
];

const containers = familyCheck(containerCall, JUDGEMENTS);

// Their other verbs (`docker rm`, `docker network rm`) are the generic resource verbs'.
judges(
  import.meta.url,
  { 'docker podman nerdctl ctr buildah docker-compose podman-compose': containers },
  { backedByVerbs: true },
);
