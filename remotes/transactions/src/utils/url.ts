/**
 * isHttpUrl: an absolute http or https URL with a host. The console checks
 * only the form; the services refuse private and loopback addresses.
 */
export function isHttpUrl(raw: string): boolean {
  try {
    const u = new URL(raw.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}
