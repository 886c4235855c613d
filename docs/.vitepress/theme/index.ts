/** The doc site's theme: VitePress's default theme, plus the components pages use without importing them. */
import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import Lifecycle from './Lifecycle.vue';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    // <Lifecycle action="create" />: an action's request lifecycle (guide/controllers.md).
    app.component('Lifecycle', Lifecycle);
  },
} satisfies Theme;
