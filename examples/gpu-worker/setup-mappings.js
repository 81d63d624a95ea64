// Creates the resource mappings the example uses, as an admin would once per cluster
// (Datacenter → Resource Mappings). Needs Mapping.Modify on /mapping, e.g. root@pam's token:
//
//   PROXMOX_VE_ENDPOINT=https://pve.example:8006 PROXMOX_VE_API_TOKEN='root@pam!admin=…' \
//   NODE_EXTRA_CA_CERTS=./pve-ca.pem node setup-mappings.js pve1 0000:01:00.0 10de:2204 /srv/datasets
//
// Arguments: the node, the GPU's PCI path and vendor:device id, and the directory to share.
// Further `<path> <id>` pairs after the directory add more GPUs to the same mapping.
const [node, gpuPath, gpuId, directory, ...more] = process.argv.slice(2);
const endpoint = process.env.PROXMOX_VE_ENDPOINT;
const token = process.env.PROXMOX_VE_API_TOKEN;
if (!node || !gpuPath || !gpuId || !directory || !endpoint || !token) {
  console.error(
    "usage: node setup-mappings.js <node> <gpu path> <gpu id> <directory> [<path> <id>]…",
  );
  console.error("with PROXMOX_VE_ENDPOINT and PROXMOX_VE_API_TOKEN set");
  process.exit(2);
}

const gpus = [[gpuPath, gpuId]];
for (let i = 0; i + 1 < more.length; i += 2) gpus.push([more[i], more[i + 1]]);

async function create(type, id, map) {
  const body = new URLSearchParams([["id", id], ...map.map((entry) => ["map", entry])]);
  const res = await fetch(`${endpoint}/api2/json/cluster/mapping/${type}`, {
    method: "POST",
    headers: { authorization: `PVEAPIToken=${token}` },
    body,
  });
  if (!res.ok) throw new Error(`${type} mapping ${id}: ${res.status} ${res.statusText}`);
  console.log(`created ${type} mapping ${id}`);
}

async function main() {
  await create(
    "pci",
    "gpu0",
    gpus.map(([path, id]) => `node=${node},path=${path},id=${id}`),
  );
  await create("dir", "datasets", [`node=${node},path=${directory}`]);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
