/**
 * What a process's memory is made of, read from /proc and from its /metrics: resident size (now and
 * peak), split into file-backed pages (the node binary's code and data as far as it was touched) and
 * anonymous memory (the V8 heap, malloc, stacks), the V8 heap (reserved for objects, and used), memory
 * outside the heap that V8 knows of (Buffers), open sockets, and CPU time so far (in all, and by kind of
 * thread).
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface MemoryBreakdown {
  rssBytes: number;
  peakRssBytes: number;
  /** Pages mapped from files: mostly the node binary, shared and reclaimable. */
  fileBytes: number;
  /** The V8 heap, malloc arenas, thread stacks. */
  anonymousBytes: number;
  heapTotalBytes: number;
  heapUsedBytes: number;
  /** Memory outside the V8 heap that V8 accounts for: Buffers and ArrayBuffers. */
  externalBytes: number;
  sockets: number;
}

/** The value of a `Field:   123 kB` line, in bytes. */
export function kbField(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  if (!match) throw new Error(`no ${field} line`);
  return Number(match[1]) * 1024;
}

/** A gauge from a Prometheus text exposition. */
export function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm').exec(text);
  if (!match) throw new Error(`no ${name} in /metrics`);
  return Number(match[1]);
}

/** user + system CPU seconds from a /proc/<pid>/stat line (the fields after the command's parenthesis). */
export function cpuSecondsFromStat(stat: string, ticksPerSecond = 100): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export async function cpuSeconds(pid: number): Promise<number> {
  return cpuSecondsFromStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU seconds by kind of thread: the main thread (every pass, poll and parse), V8's workers (the
 * collector's concurrent marking and sweeping, and background compiles), and the rest (libuv's pool,
 * Node's own). They tell the controller's work from the collector's.
 */
export interface ThreadCpu {
  mainThread: number;
  v8Workers: number;
  other: number;
}

/** `threads`: each thread's id, name (/proc/<pid>/task/<tid>/comm) and stat line. */
export function threadCpuFromStats(
  pid: number,
  threads: readonly { tid: number; name: string; stat: string }[],
): ThreadCpu {
  const cpu: ThreadCpu = { mainThread: 0, v8Workers: 0, other: 0 };
  for (const { tid, name, stat } of threads) {
    const kind = tid === pid ? 'mainThread' : name.startsWith('V8') ? 'v8Workers' : 'other';
    cpu[kind] += cpuSecondsFromStat(stat);
  }
  return cpu;
}

export async function threadCpuSeconds(pid: number): Promise<ThreadCpu> {
  const tids = await readdir(`/proc/${pid}/task`);
  const threads = await Promise.all(
    tids.map(async (tid) => {
      const dir = `/proc/${pid}/task/${tid}`;
      const [name, stat] = await Promise.all([
        readFile(`${dir}/comm`, 'utf8'),
        readFile(`${dir}/stat`, 'utf8'),
      ]);
      return { tid: Number(tid), name: name.trim(), stat };
    }),
  );
  return threadCpuFromStats(pid, threads);
}

export async function memoryBreakdown(pid: number, metricsUrl: string): Promise<MemoryBreakdown> {
  const [status, rollup, metrics, fds] = await Promise.all([
    readFile(`/proc/${pid}/status`, 'utf8'),
    readFile(`/proc/${pid}/smaps_rollup`, 'utf8'),
    fetch(metricsUrl).then((r) => r.text()),
    readdir(`/proc/${pid}/fd`),
  ]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const rss = kbField(rollup, 'Rss');
  const anonymous = kbField(rollup, 'Anonymous');
  return {
    rssBytes: kbField(status, 'VmRSS'),
    peakRssBytes: kbField(status, 'VmHWM'),
    fileBytes: rss - anonymous,
    anonymousBytes: anonymous,
    heapTotalBytes: metric(metrics, 'nodejs_heap_size_total_bytes'),
    heapUsedBytes: metric(metrics, 'nodejs_heap_size_used_bytes'),
    externalBytes: metric(metrics, 'nodejs_external_memory_bytes'),
    sockets: links.filter((l) => l.startsWith('socket:')).length,
  };
}
