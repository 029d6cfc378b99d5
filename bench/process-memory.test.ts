import { describe, expect, it } from 'vitest';
import { cpuSecondsFromStat, kbField, metric, threadCpuFromStats } from './process-memory.ts';

describe('reading /proc and /metrics', () => {
  const status = 'Name:\tnode\nVmHWM:\t  120368 kB\nVmRSS:\t   89688 kB\n';
  it.each([
    ['VmRSS', 89688 * 1024],
    ['VmHWM', 120368 * 1024],
  ])('%s from a status file', (field, bytes) => {
    expect(kbField(status, field)).toBe(bytes);
  });

  it('names a field that is missing', () => {
    expect(() => kbField(status, 'Anonymous')).toThrow('no Anonymous line');
  });

  const metrics = [
    '# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.',
    'nodejs_heap_size_used_bytes 23691264',
    'nodejs_heap_size_total_bytes{app="x"} 2.6214e+7',
  ].join('\n');
  it.each([
    ['nodejs_heap_size_used_bytes', 23691264],
    ['nodejs_heap_size_total_bytes', 26214000],
  ])('%s, with or without labels', (name, value) => {
    expect(metric(metrics, name)).toBe(value);
  });

  it('reads utime + stime after a command name with spaces and parentheses', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const stat = '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0';
    expect(cpuSecondsFromStat(stat)).toBe(3);
  });

  it("sums each kind of thread's utime + stime: the main thread (the process's id), V8's workers, the rest", () => {
    const stat = (tid: number, ticks: number) => `${tid} (x) S 1 1 1 0 -1 0 0 0 0 0 ${ticks} 0 0 0 20 0 11 0`;
    const threads = [
      { tid: 100, name: 'MainThread', stat: stat(100, 800) },
      { tid: 101, name: 'V8Worker', stat: stat(101, 40) },
      { tid: 102, name: 'V8 DefaultWorke', stat: stat(102, 10) },
      { tid: 103, name: 'libuv-worker', stat: stat(103, 3) },
      { tid: 104, name: 'MainThread', stat: stat(104, 7) },
    ];
    expect(threadCpuFromStats(100, threads)).toEqual({ mainThread: 8, v8Workers: 0.5, other: 0.1 });
  });
});
