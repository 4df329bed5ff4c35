// Format in the config editors: the text in the layout of the service's tooling (`sesam format`), as workspace files
// are written, asked of the local hub (POST /desktop/config-format). A text without a final newline stays without.
import { hostApi, json } from './api';

/** The formatted text, or null when the text is not JSON (its problems list says where) or the hub did not answer. */
export async function formattedText(text: string): Promise<string | null> {
  try {
    const formatted = (await hostApi<{ text: string }>('/config-format', json('POST', { text }))).text;
    return text.endsWith('\n') ? formatted : formatted.replace(/\n$/, '');
  } catch {
    return null;
  }
}
