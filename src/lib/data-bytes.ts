/** The bytes a string map takes (a Secret's data: keys and base64 values, as held). */
export function dataBytes(data: Readonly<Record<string, string>> | undefined): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(data ?? {})) bytes += key.length + value.length;
  return bytes;
}
