/**
 * The machine type a VM starts with, and whether the node's QEMU can run it: qemu-server
 * `src/PVE/QemuServer.pm` (`config_to_command`, at every start) and `src/PVE/QemuServer/Machine.pm`
 * (`get_vm_machine`: a version-pinned type without a `+pveN` suffix runs as `+pve0`).
 */

/** The `type` of PVE's `machine` value (`pc-q35-8.1`, or `type=pc-q35-8.1,viommu=intel`). */
function machineType(value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  for (const part of String(value).split(",")) {
    const [key, type] = part.includes("=") ? part.split("=", 2) : ["type", part];
    if (key === "type") return type;
  }
  return undefined;
}

/**
 * PVE's refusal to start a VM pinned to a machine version newer than the installed QEMU, or
 * undefined when it can start. An unpinned type (`q35`, `pc`) takes the installed version.
 */
export function machineTooNew(
  machine: unknown,
  qemuVersion: string,
  node: string,
): string | undefined {
  const type = machineType(machine);
  const pinned =
    type === undefined ? null : /^(?:pc(?:-i440fx|-q35)?|virt)-(\d+)\.(\d+)/.exec(type);
  if (type === undefined || pinned === null) return undefined;
  const [installedMajor = 0, installedMinor = 0] = qemuVersion.split(".").map(Number);
  const [major, minor] = [Number(pinned[1]), Number(pinned[2])];
  if (major < installedMajor || (major === installedMajor && minor <= installedMinor))
    return undefined;
  const started = /\+pve\d+/.test(type) ? type : type.replace(/(\.pxe)?$/, "+pve0$1");
  return (
    `Installed QEMU version '${qemuVersion}' is too old to run machine type '${started}', ` +
    `please upgrade node '${node}'`
  );
}
