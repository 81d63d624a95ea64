import type { SimContext } from "../context.js";
import { Router } from "../http/router.js";
import { accessRoutes } from "./access.js";
import { accessTicketRoutes } from "./access-ticket.js";
import { accessUserRoutes } from "./access-users.js";
import { agentRoutes } from "./agent.js";
import { agentInfoRoutes } from "./agent-info.js";
import { clusterRoutes } from "./cluster.js";
import { downloadUrlRoutes } from "./download-url.js";
import { haRoutes } from "./ha.js";
import { haPlacementRoutes } from "./ha-placement.js";
import { mappingRoutes } from "./mappings.js";
import { nodeNetworkRoutes } from "./node-network.js";
import { nodeStatusRoutes } from "./node-status.js";
import { poolRoutes } from "./pools.js";
import { qemuCloneRoutes } from "./qemu-clone.js";
import { qemuCloudinitRoutes } from "./qemu-cloudinit.js";
import { qemuConfigRoutes } from "./qemu-config.js";
import { qemuCreateRoutes } from "./qemu-create.js";
import { qemuDiskRoutes } from "./qemu-disk.js";
import { qemuPowerRoutes } from "./qemu-power.js";
import { qemuReadRoutes } from "./qemu-read.js";
import { qemuSnapshotRoutes } from "./qemu-snapshot.js";
import { qemuSnapshotRollbackRoutes } from "./qemu-snapshot-rollback.js";
import { qemuTemplateRoutes } from "./qemu-template.js";
import { storageRoutes } from "./storage.js";
import { storageStatusRoutes } from "./storage-status.js";
import { taskListRoutes } from "./task-list.js";
import { taskRoutes } from "./tasks.js";
import { uploadRoutes } from "./upload.js";

export function buildRouter(): Router<SimContext> {
  const router = new Router<SimContext>();
  router.add(
    ...clusterRoutes,
    ...haRoutes,
    ...haPlacementRoutes,
    ...mappingRoutes,
    ...accessRoutes,
    ...accessTicketRoutes,
    ...accessUserRoutes,
    ...qemuReadRoutes,
    ...qemuConfigRoutes,
    ...qemuPowerRoutes,
    ...qemuCloneRoutes,
    ...qemuCloudinitRoutes,
    ...qemuCreateRoutes,
    ...qemuTemplateRoutes,
    ...qemuDiskRoutes,
    ...qemuSnapshotRoutes,
    ...qemuSnapshotRollbackRoutes,
    ...agentRoutes,
    ...agentInfoRoutes,
    ...nodeStatusRoutes,
    ...nodeNetworkRoutes,
    ...poolRoutes,
    ...storageRoutes,
    ...storageStatusRoutes,
    ...uploadRoutes,
    ...downloadUrlRoutes,
    ...taskRoutes,
    ...taskListRoutes,
  );
  return router;
}
