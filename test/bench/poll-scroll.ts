/*
 * Scrolling while the lists poll (issue 33; part of list-scroll-bench.ts): the Pipes list (GET /pipes every 2 s) and
 * the Datasets list (GET /datasets every 5 s, "N s ago" times) scrolled down and up for POLL_SCROLL_MS, long enough
 * for several polls, on a project whose pipes have run (their "last run N s ago" moves at every poll). Reported: the
 * worst frame, frames over 50 ms, and long tasks (> 50 ms) with the longest: the one-off stalls a poll makes, which a
 * short scroll between two polls does not see. With BENCH_BEFORE_RENDERER=<a built renderer folder> (say a copy of
 * out/renderer from main) the same scroll runs on that build too, in the same browser and hub, alternating rounds:
 * before and after side by side in one run.
 */
import { readFileSync, existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Page } from 'playwright-core';

export const POLL_SCROLL_MS = Number(process.env['POLL_SCROLL_MS'] ?? 12_000);

export interface PollScrollResult {
  label: string;
  /** Which renderer build: 'this' or 'before'. */
  build: string;
  frames: number;
  worstFrameMs: number;
  framesOver50: number;
  longTasks: number;
  longestTaskMs: number;
  /** The page's main-thread CPU time (thread time: what other processes take does not count) during the scroll. */
  cpuMs: number;
  /** The same over as long on the list without scrolling: what the polls alone cost. */
  idleCpuMs: number;
}

/** Scroll the list under `selector` down and up (one way in 3 s) for `duration` ms: frames and long tasks. */
export async function pollScroll(page: Page, selector: string, duration: number): Promise<{ frames: number[]; longTasks: number[] }> {
  const script = `(async () => {
    let el = document.querySelector(${JSON.stringify(selector)});
    while (el && !(el.scrollHeight > el.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(el).overflowY))) el = el.parentElement;
    const box = el ?? document.scrollingElement;
    box.scrollTop = 0;
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    await frame();
    const longTasks = [];
    const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
    observer.observe({ type: 'longtask' });
    const frames = [];
    const t0 = await frame();
    let last = t0;
    for (;;) {
      const t = await frame();
      frames.push(t - last);
      last = t;
      if (t - t0 >= ${duration}) break;
      const phase = ((t - t0) / 3000) % 2;
      box.scrollTop = (phase < 1 ? phase : 2 - phase) * (box.scrollHeight - box.clientHeight);
    }
    await new Promise((r) => setTimeout(r, 100));
    observer.disconnect();
    return { frames, longTasks };
  })()`;
  return (await page.evaluate(script)) as { frames: number[]; longTasks: number[] };
}

export function pollScrollResult(label: string, build: string, s: { frames: number[]; longTasks: number[] }, cpuMs: number, idleCpuMs: number): PollScrollResult {
  return {
    cpuMs,
    idleCpuMs,
    label,
    build,
    frames: s.frames.length,
    worstFrameMs: Math.max(0, ...s.frames),
    framesOver50: s.frames.filter((f) => f > 50).length,
    longTasks: s.longTasks.filter((t) => t > 50).length,
    longestTaskMs: Math.max(0, ...s.longTasks),
  };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.ttf': 'font/ttf', '.map': 'application/json' };

/**
 * Serve the app's own files from `dir` (another build of the renderer) instead of the hub's, on `page`: the API and
 * everything else still goes to the hub. Off again with the function it answers.
 */
export async function useRendererBuild(page: Page, hubUrl: string, dir: string): Promise<() => Promise<void>> {
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`no renderer build in ${dir}`);
  const pattern = (url: URL): boolean => url.origin === hubUrl && (url.pathname === '/' || url.pathname === '/index.html' || url.pathname.startsWith('/assets/') || url.pathname === '/favicon.svg');
  const handler = async (route: import('playwright-core').Route): Promise<void> => {
    const url = new URL(route.request().url());
    const file = join(dir, url.pathname === '/' ? 'index.html' : url.pathname.slice(1));
    if (!existsSync(file)) return route.continue();
    await route.fulfill({ status: 200, contentType: TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) });
  };
  await page.route(pattern, handler);
  return () => page.unroute(pattern, handler);
}
