// The sidebar's theme switch (ui/theme.py): applies Light, Dark or Auto (the computer's
// setting) to the app, with no reload. Streamlit 1.67 has no Python call for this; its own
// settings menu picks a theme through the ThemeContext that every element sits in, so this
// finds that context from the component's place in the page (React's fiber tree) and calls
// the same setTheme, which also remembers the choice in this browser as the menu does.
// The server's own choice (a theme set in config.toml or on the command line) leaves one
// theme to choose from; ui/theme.py then draws no switch.
const NAMES = { auto: 'Use system setting', light: 'Light', dark: 'Dark' };

function themeContext(node) {
  const key = Object.keys(node).find((k) => k.startsWith('__reactFiber$'));
  for (let f = key ? node[key] : null; f; f = f.return) {
    const value = f.memoizedProps && f.memoizedProps.value;
    if (value && typeof value.setTheme === 'function' && Array.isArray(value.availableThemes)) return value;
  }
  return null;
}

export default function (component) {
  const wanted = NAMES[(component.data || {}).theme] || NAMES.auto;
  const apply = () => {
    const app = document.querySelector("[data-testid='stApp']");
    const context = app && themeContext(app);
    if (!context) return false;
    if (context.activeTheme && context.activeTheme.name === wanted) return true;
    const theme = context.availableThemes.find((t) => t.name === wanted);
    if (theme) context.setTheme(theme);
    return true;
  };
  if (!apply()) requestAnimationFrame(apply);  // the app may still be mounting
}
