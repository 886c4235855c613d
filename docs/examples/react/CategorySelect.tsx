/**
 * React 19 components over an options endpoint (docs/actions/options.md): a `useOptions(url)`
 * hook, a `<CategorySelect>` and a `<CategoryAutocomplete>`. spec/browser/react-options.spec.ts
 * runs them in Chromium against the demo app.
 */
import { useEffect, useId, useState } from 'react';
import type { OptionItem } from 'koa-fast-crud';

// #region use-options
/** The request under way, its items, or why there are none. */
export type OptionsState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly items: readonly OptionItem[] }
  | { readonly status: 'failed'; readonly message: string };

/** The JSend bodies an options endpoint answers with. */
type OptionsReply =
  | { status: 'success'; data: OptionItem[] }
  | { status: 'fail'; data: { field: string | null; message: string }[] }
  | { status: 'error'; message: string };

/** Fetches `GET <uri>/options?…` once per url; a new url or unmounting aborts the request. */
export function useOptions(url: string): OptionsState {
  const [state, setState] = useState<OptionsState>({ status: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    setState({ status: 'loading' });
    fetch(url, { signal: controller.signal })
      .then(async (response) => {
        const reply = (await response.json()) as OptionsReply;
        if (reply.status === 'success') setState({ status: 'ready', items: reply.data });
        else setState({ status: 'failed', message: messageOf(reply) });
      })
      .catch((error: unknown) => {
        // An aborted request rejects too: its component has moved on, so say nothing.
        if (!controller.signal.aborted) setState({ status: 'failed', message: String(error) });
      });
    return () => controller.abort();
  }, [url]);
  return state;
}

function messageOf(reply: Exclude<OptionsReply, { status: 'success' }>): string {
  if (reply.status === 'error') return reply.message;
  return reply.data.map((item) => item.message).join('; ');
}
// #endregion use-options

// #region category-select
export interface CategorySelectProps {
  /** The chosen category's id; '' for none. */
  readonly value: string;
  readonly onChange: (id: string) => void;
  /** The options endpoint; the demo's categories by default. */
  readonly url?: string;
}

const CATEGORIES = '/api/categories/options?label=name';

export function CategorySelect({ value, onChange, url = CATEGORIES }: CategorySelectProps) {
  const options = useOptions(url);
  if (options.status === 'failed') {
    return <p role="alert">Categories could not be loaded: {options.message}</p>;
  }
  return (
    <select
      value={value}
      onChange={(event) => onChange(event.target.value)}
      disabled={options.status === 'loading'}
    >
      <option value="">{options.status === 'loading' ? 'Loading…' : 'Choose a category'}</option>
      {options.status === 'ready' &&
        options.items.map((item) => (
          <option key={String(item.value)} value={String(item.value)}>
            {String(item.label)}
          </option>
        ))}
    </select>
  );
}
// #endregion category-select

// #region category-autocomplete
export type CategoryAutocompleteProps = Omit<CategorySelectProps, 'value'>;

/** A text box that suggests labels; `onChange` gets the value of the label typed, or ''. */
export function CategoryAutocomplete({ onChange, url = CATEGORIES }: CategoryAutocompleteProps) {
  const options = useOptions(url);
  const listId = useId();
  const items = options.status === 'ready' ? options.items : [];
  const valueOf = (label: string) => items.find((item) => String(item.label) === label)?.value;
  return (
    <>
      <input
        list={listId}
        placeholder="Type a category"
        onChange={(event) => onChange(String(valueOf(event.target.value) ?? ''))}
      />
      <datalist id={listId}>
        {items.map((item) => (
          <option key={String(item.value)} value={String(item.label)} />
        ))}
      </datalist>
    </>
  );
}
// #endregion category-autocomplete
