import { describe, expect, it } from 'vitest';
import { clampedWhole, describeBounds, readNumber } from './numberInput';

describe('number inputs read as JSON numbers', () => {
  it('reads decimal text as a number, integers and fractions', () => {
    expect(readNumber(' 42 ')).toEqual({ value: 42, problem: null });
    expect(readNumber('-0.25')).toEqual({ value: -0.25, problem: null });
    expect(readNumber('.5').value).toBe(0.5);
    expect(readNumber('1e3').value).toBe(1000);
    expect(readNumber('2.0', { integer: true }).value).toBe(2);
  });

  it('refuses what Number() would quietly turn into another number, NaN or an infinity', () => {
    for (const text of ['', ' ', 'abc', '0x10', '0b1', 'Infinity', '-Infinity', 'NaN', '1,5', '2 3', '1e999']) {
      expect(readNumber(text)).toEqual({ value: null, problem: 'a number' });
    }
  });

  it('holds a field to whole numbers and bounds, and says which in words', () => {
    expect(readNumber('2.5', { integer: true, min: 1, max: 1000 })).toEqual({ value: null, problem: 'a whole number from 1 to 1,000' });
    expect(readNumber('0', { integer: true, min: 1 }).problem).toBe('a whole number of at least 1');
    expect(readNumber('9007199254740993', { integer: true }).value).toBeNull(); // past 2^53: not the number typed
    expect(describeBounds({ max: 1 })).toBe('a number of at most 1');
  });

  it('turns a stepper into a whole number within its bounds', () => {
    expect(clampedWhole('7', 1, 50)).toBe(7);
    expect(clampedWhole('2.6', 1, 50)).toBe(3);
    expect(clampedWhole('500', 1, 50)).toBe(50);
    expect(clampedWhole('', 1, 50)).toBe(1);
    expect(clampedWhole('-3', 1, 50)).toBe(1);
  });
});
