export { NODE, STORAGE, UNKNOWN_PROPERTY, VMID, validateParams, splitList } from "./params.js";
export type { ParamSchema, ParamSpec, Params, RawParams } from "./params.js";
export {
  PveError,
  paramError,
  permError,
  dieError,
  configMissing,
  configNotFound,
  lockTimeout,
} from "./pve-error.js";
export { Reply, Router } from "./router.js";
export type { Route, RouteContext } from "./router.js";
