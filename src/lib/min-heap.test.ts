import { describe, expect, it } from 'vitest';
import { MinHeap } from './min-heap.ts';

describe('MinHeap', () => {
  it.each<[string, number[]]>([
    ['ascending', [1, 2, 3, 4, 5]],
    ['descending', [5, 4, 3, 2, 1]],
    ['with repeats', [3, 1, 3, 2, 1, 5, 0]],
    ['one', [7]],
  ])('pops %s priorities smallest first', (_name, priorities) => {
    const heap = new MinHeap<string>();
    priorities.forEach((p, i) => {
      heap.push(p, `item-${i}`);
    });
    const popped: number[] = [];
    for (let top = heap.pop(); top; top = heap.pop()) popped.push(top.priority);
    expect(popped).toEqual([...priorities].sort((a, b) => a - b));
    expect(heap.size).toBe(0);
  });

  it('keeps order through interleaved pushes and pops, against a sorted list', () => {
    const heap = new MinHeap<number>();
    const sorted: number[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed % 1000;
    };
    for (let round = 0; round < 500; round++) {
      const p = random();
      heap.push(p, p);
      sorted.push(p);
      sorted.sort((a, b) => a - b);
      if (round % 3 === 0) expect(heap.pop()?.item).toBe(sorted.shift());
      expect(heap.peek()?.priority).toBe(sorted[0]);
    }
  });
});
