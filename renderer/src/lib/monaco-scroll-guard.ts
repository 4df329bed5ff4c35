// Monaco scrolls its text with its own offsets and undoes a native scroll of its inner nodes ("the browser trying
// desperately to reveal" a focused node) — except horizontal scrolls of the scrollable element that holds the lines.
// After a paste of a long line and a reformat (or a layout change from the preview pane), Chromium scrolled that node
// natively, by hundreds of pixels, to keep the hidden input at the old caret in view: the text layer sat that far to
// the left and the editor looked blank. This moves any such native offset into the editor's own horizontal scroll.
import type * as Monaco from 'monaco-editor/editor/editor.api';

const NODES = '.overflow-guard, .monaco-scrollable-element.editor-scrollable, .lines-content';

export function keepTextLayerInPlace(editor: Monaco.editor.ICodeEditor): Monaco.IDisposable {
  const root = editor.getDomNode();
  const nodes = root ? [...root.querySelectorAll<HTMLElement>(NODES)] : [];
  const onScroll = (event: Event): void => {
    const node = event.currentTarget;
    if (!(node instanceof HTMLElement) || node.scrollLeft === 0) return;
    const delta = node.scrollLeft;
    node.scrollLeft = 0;
    editor.setScrollLeft(Math.max(0, editor.getScrollLeft() + delta));
  };
  for (const node of nodes) node.addEventListener('scroll', onScroll);
  return { dispose: () => nodes.forEach((node) => node.removeEventListener('scroll', onScroll)) };
}
