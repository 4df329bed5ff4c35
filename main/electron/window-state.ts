// The main window's size and position, remembered between launches (userData/window-state.json).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  /** Absent until the window was placed once; the OS then centres it. */
  bounds: Partial<Rect> & { width: number; height: number };
  maximized: boolean;
}

export const DEFAULT_STATE: WindowState = { bounds: { width: 1280, height: 820 }, maximized: false };
const MIN_VISIBLE = 64;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function loadWindowState(file: string): WindowState {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { bounds?: Record<string, unknown>; maximized?: unknown };
    const b = raw.bounds ?? {};
    if (!isNumber(b['width']) || !isNumber(b['height'])) return DEFAULT_STATE;
    const bounds: WindowState['bounds'] = { width: Math.max(400, b['width']), height: Math.max(300, b['height']) };
    if (isNumber(b['x']) && isNumber(b['y'])) Object.assign(bounds, { x: b['x'], y: b['y'] });
    return { bounds, maximized: raw.maximized === true };
  } catch {
    return DEFAULT_STATE;
  }
}

export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(state) + '\n');
}

/**
 * Keep a remembered position only if enough of the window lands on a connected display (a monitor may
 * have been unplugged since); otherwise drop x/y so the window opens centred.
 */
export function placeOnScreen(state: WindowState, workAreas: readonly Rect[]): WindowState {
  const { x, y, width, height } = state.bounds;
  if (x === undefined || y === undefined) return state;
  const visible = workAreas.some((area) => {
    const w = Math.min(x + width, area.x + area.width) - Math.max(x, area.x);
    const h = Math.min(y + height, area.y + area.height) - Math.max(y, area.y);
    return w >= MIN_VISIBLE && h >= MIN_VISIBLE;
  });
  return visible ? state : { ...state, bounds: { width, height } };
}
