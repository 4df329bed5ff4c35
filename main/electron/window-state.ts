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
 * Where the window opens. A remembered position is kept only if enough of the window lands on a connected
 * display (a monitor may have been unplugged since); otherwise x/y are dropped so the window opens centred
 * on the primary display (the first work area). Either way a window bigger than its display (saved on a
 * larger monitor, or before the resolution changed) is shrunk to fit and moved fully onto it.
 */
export function placeOnScreen(state: WindowState, workAreas: readonly Rect[]): WindowState {
  const { x, y, width, height } = state.bounds;
  const overlap = (area: Rect, px: number, py: number): number => {
    const w = Math.min(px + width, area.x + area.width) - Math.max(px, area.x);
    const h = Math.min(py + height, area.y + area.height) - Math.max(py, area.y);
    return w >= MIN_VISIBLE && h >= MIN_VISIBLE ? w * h : 0;
  };
  // The display that shows most of the window, or none when the window is off every screen.
  let home: Rect | undefined;
  let seenMost = 0;
  if (x !== undefined && y !== undefined) {
    for (const area of workAreas) {
      const seen = overlap(area, x, y);
      if (seen > seenMost) [home, seenMost] = [area, seen];
    }
  }
  const area = home ?? workAreas[0];
  if (!area) return state;
  const fitted = { width: Math.min(width, area.width), height: Math.min(height, area.height) };
  if (!home || x === undefined || y === undefined) return { ...state, bounds: fitted };
  // A window that fits keeps its place (it may span two displays); a shrunk one is moved fully onto its display.
  if (fitted.width === width && fitted.height === height) return state;
  const clamp = (v: number, lo: number, span: number, size: number): number => Math.min(Math.max(v, lo), lo + span - size);
  return { ...state, bounds: { x: clamp(x, area.x, area.width, fitted.width), y: clamp(y, area.y, area.height, fitted.height), ...fitted } };
}
