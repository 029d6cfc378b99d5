import { describe, expect, it } from 'vitest';
import { cpuSecondsFromStat, kbField, metric } from './process-memory.ts';

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
});
