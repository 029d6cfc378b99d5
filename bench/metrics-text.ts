/** Reading a controller's /metrics text exposition in the bench. */

/** A sample of a metric (summed over its series, or those whose labels include `labels`). */
export function sampleSum(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The metrics text of a controller process. */
export async function scrape(process: { metricsUrl: string }): Promise<string> {
  return (await fetch(process.metricsUrl)).text();
}
