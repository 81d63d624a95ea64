export { EngineCheck, type EngineCheckArgs } from "./engine-check";
