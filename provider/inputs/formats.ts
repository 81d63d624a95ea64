/**
 * The value formats the inputs share: one zod schema per fact, used by the VM's inputs (`check`)
 * and by the cloud-init seed, so an address that passes `check` is one the seed builder accepts.
 */
import { isIPv4, isIPv6 } from "node:net";
import { z } from "zod";

export const ipv4Address = z.string().refine((v) => isIPv4(v), "must be an IPv4 address");

export const ipv6Address = z.string().refine((v) => isIPv6(v), "must be an IPv6 address");

export const ipAddress = z
  .string()
  .refine((v) => isIPv4(v) || isIPv6(v), "must be an IP address (IPv4 or IPv6)");

function hasPrefix(value: string, isAddress: (a: string) => boolean, maxBits: number): boolean {
  const [address = "", prefix, ...rest] = value.split("/");
  if (prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return isAddress(address) && Number(prefix) <= maxBits;
}

export const ipv4Cidr = z
  .string()
  .refine(
    (v) => hasPrefix(v, isIPv4, 32),
    "must be an IPv4 address with a prefix length, e.g. 10.0.0.5/24",
  );

export const ipv6Cidr = z
  .string()
  .refine(
    (v) => hasPrefix(v, isIPv6, 128),
    "must be an IPv6 address with a prefix length, e.g. 2001:db8::10/64",
  );

export const ipCidr = z
  .string()
  .refine(
    (v) => hasPrefix(v, isIPv4, 32) || hasPrefix(v, isIPv6, 128),
    "must be an address with a prefix length, e.g. 192.0.2.10/24 or 2001:db8::10/64",
  );

export const macAddress = z
  .string()
  .regex(/^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/, "must be a MAC address like BC:24:11:00:00:01");

export const searchDomain = z
  .string()
  .regex(/^(?!-)[A-Za-z0-9.-]{1,253}$/, "must be a domain name, e.g. example.com");

export const storageId = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9\-_.]*$/, "must be a Proxmox storage id, e.g. local-lvm");
