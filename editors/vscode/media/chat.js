// The chat view's page: draws the session from the extension's events (messages, streamed
// answers, tool calls, diffs, permission questions) and sends the user's actions back. Every
// text from the agent or the model is escaped before it is shown: the Markdown renderer below
// builds HTML only from escaped text.
// @ts-check
'use strict';
(function () {
  // @ts-ignore: given by VS Code to webviews
  const vscode = acquireVsCodeApi();
  const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const log = $('log');
  const input = /** @type {HTMLTextAreaElement} */ ($('input'));
  const mode = /** @type {HTMLSelectElement} */ ($('mode'));
  const stop = /** @type {HTMLButtonElement} */ ($('stop'));
  const commandList = $('commands');
  /** The answer being streamed: its element and its Markdown so far. */
  let answer = null;
  let commands = [];
  /** The workspace folder, left off the paths shown. */
  let folder = '';
  const shortPath = (p) => (folder && p.startsWith(folder + '/') ? p.slice(folder.length + 1) : p);
  const tools = new Map();

  const STATUS = { pending: 'pending', in_progress: 'running', completed: 'done', failed: 'failed' };

  function escape(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  }

  /** Inline Markdown on escaped text: code spans first, so that nothing inside them changes. */
  function inline(text) {
    return escape(text)
      .split(/(`[^`]+`)/)
      .map((part) =>
        part.startsWith('`') && part.endsWith('`') && part.length > 1
          ? `<code>${part.slice(1, -1)}</code>`
          : part.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>'),
      )
      .join('');
  }

  /** A small Markdown renderer: fenced code blocks, headings, lists, paragraphs, inline code. */
  function markdown(source) {
    const out = [];
    const lines = source.split('\n');
    let para = [];
    let list = null;
    const flush = () => {
      if (para.length) out.push(`<p>${para.map(inline).join('<br>')}</p>`);
      para = [];
      if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.tag}>`);
      list = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = /^\s*(```+|~~~+)\s*([\w+.#-]*)/.exec(line);
      if (fence) {
        flush();
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
        const lang = fence[2] ? ` data-lang="${escape(fence[2])}"` : '';
        out.push(`<pre${lang}><code>${escape(body.join('\n'))}</code></pre>`);
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
      if (heading) {
        flush();
        const level = Math.min(heading[1].length + 2, 6);
        out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      } else if (item) {
        if (para.length) flush();
        const tag = /\d/.test(item[1]) ? 'ol' : 'ul';
        if (list && list.tag !== tag) flush();
        list = list || { tag, items: [] };
        list.items.push(item[2]);
      } else if (!line.trim()) {
        flush();
      } else {
        if (list) flush();
        para.push(line);
      }
    }
    flush();
    return out.join('');
  }

  function element(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, onClick, attrs) {
    const b = element('button', Object.assign({ type: 'button' }, attrs || {}), text);
    b.addEventListener('click', onClick);
    return b;
  }

  function scroll() {
    log.scrollTop = log.scrollHeight;
  }

  function message(who, label) {
    const e = element('article', { role: 'article', 'aria-label': label, class: `message ${who}` });
    e.appendChild(element('div', { class: 'who' }, label));
    log.appendChild(e);
    return e;
  }

  function note(text, kind) {
    const e = element('div', { role: kind === 'error' ? 'alert' : 'status', class: `note ${kind || ''}` }, text);
    log.appendChild(e);
    scroll();
  }

  function chunk(text) {
    if (!answer) {
      const e = message('agent', 'pilotfish');
      const body = element('div', { class: 'body' });
      e.appendChild(body);
      answer = { body, text: '' };
    }
    answer.text += text;
    answer.body.innerHTML = markdown(answer.text);
    scroll();
  }

  /** A line diff: the common start and end kept, the middle compared line by line (LCS). */
  function diffLines(before, after) {
    const a = before.split('\n');
    const b = after.split('\n');
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let end = 0;
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
    const x = a.slice(start, a.length - end);
    const y = b.slice(start, b.length - end);
    const rows = a.slice(Math.max(0, start - 2), start).map((t) => [' ', t]);
    if (x.length * y.length > 250000) {
      x.forEach((t) => rows.push(['-', t]));
      y.forEach((t) => rows.push(['+', t]));
    } else {
      const L = Array.from({ length: x.length + 1 }, () => new Array(y.length + 1).fill(0));
      for (let i = x.length - 1; i >= 0; i--)
        for (let j = y.length - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
      let i = 0;
      let j = 0;
      while (i < x.length || j < y.length) {
        if (i < x.length && j < y.length && x[i] === y[j]) rows.push([' ', x[i++]]), j++;
        // Removed lines before added ones, as diffs show them.
        else if (i < x.length && (j === y.length || L[i + 1][j] >= L[i][j + 1])) rows.push(['-', x[i++]]);
        else rows.push(['+', y[j++]]);
      }
    }
    a.slice(a.length - end, Math.min(a.length, a.length - end + 2)).forEach((t) => rows.push([' ', t]));
    return rows;
  }

  function diffBlock(d) {
    const name = shortPath(d.path);
    const box = element('div', { class: 'diff', role: 'group', 'aria-label': `Diff of ${name}` });
    box.appendChild(element('div', { class: 'path' }, d.oldText === null ? `${name} (new file)` : name));
    const pre = element('pre', { class: 'lines' });
    for (const [sign, text] of diffLines(d.oldText || '', d.newText || '')) {
      const cls = sign === '+' ? 'add' : sign === '-' ? 'del' : 'ctx';
      pre.appendChild(element('div', { class: cls }, `${sign} ${text}`));
    }
    box.appendChild(pre);
    return box;
  }

  function toolCall(u) {
    let t = tools.get(u.toolCallId);
    if (!t) {
      answer = null;
      const e = element('section', { class: 'tool', role: 'group', 'data-tool-call-id': u.toolCallId });
      const head = element('div', { class: 'head' });
      const title = element('span', { class: 'title' });
      const kind = element('span', { class: 'kind' });
      const status = element('span', { class: 'status' });
      head.append(title, kind, status);
      const result = element('div', { class: 'result' });
      e.append(head, result);
      log.appendChild(e);
      t = { e, title, kind, status, result, data: {} };
      tools.set(u.toolCallId, t);
    }
    Object.assign(t.data, Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined && v !== null)));
    const d = t.data;
    const status = STATUS[d.status] || d.status || 'pending';
    t.title.textContent = d.title || d.toolCallId;
    t.kind.textContent = d.kind || 'other';
    t.status.textContent = status;
    t.e.setAttribute('data-status', status);
    t.e.setAttribute('aria-label', `Tool call: ${d.title || d.toolCallId}, ${d.kind || 'other'}, ${status}`);
    if (u.content) {
      t.result.replaceChildren();
      const diffs = u.content.filter((c) => c && c.type === 'diff');
      for (const c of u.content) {
        if (c && c.type === 'content' && c.content && c.content.type === 'text') {
          t.result.appendChild(element('pre', { class: 'output' }, c.content.text));
        }
      }
      diffs.forEach((c) => t.result.appendChild(diffBlock(c)));
      if (diffs.length && d.status === 'completed') {
        const actions = element('div', { class: 'edit-actions' });
        actions.append(
          button('Keep', () => vscode.postMessage({ type: 'keep', toolCallId: d.toolCallId })),
          button('Undo', () => vscode.postMessage({ type: 'undo', toolCallId: d.toolCallId })),
        );
        t.result.appendChild(actions);
      }
    }
    scroll();
  }

  function settled(e) {
    const t = tools.get(e.toolCallId);
    if (!t) return;
    const actions = t.result.querySelector('.edit-actions');
    if (actions) actions.replaceWith(element('div', { class: 'settled', role: 'status' }, e.kept ? 'Kept' : 'Undone'));
  }

  function permission(e) {
    answer = null;
    const title = (e.toolCall && e.toolCall.title) || 'a tool call';
    const box = element('div', { class: 'permission', role: 'alertdialog', 'aria-label': `Permission: ${title}`, 'data-permission': String(e.id) });
    box.appendChild(element('div', { class: 'question' }, `pilotfish asks: ${title}`));
    const raw = e.toolCall && e.toolCall.rawInput;
    if (raw && raw.command) box.appendChild(element('pre', { class: 'output' }, [raw.command].concat(raw.args || []).join(' ')));
    const row = element('div', { class: 'choices' });
    for (const o of e.options) {
      row.appendChild(button(o.name, () => vscode.postMessage({ type: 'permission', id: e.id, optionId: o.optionId }), { 'data-option': o.optionId }));
    }
    box.appendChild(row);
    log.appendChild(box);
    scroll();
  }

  function permissionDone(e) {
    const box = log.querySelector(`[data-permission="${e.id}"]`);
    if (!box) return;
    const row = box.querySelector('.choices');
    const chosen = e.optionId && row && row.querySelector(`[data-option="${e.optionId}"]`);
    const text = chosen ? `Answered: ${chosen.textContent}` : 'Cancelled';
    if (row) row.replaceWith(element('div', { class: 'answered', role: 'status' }, text));
    box.setAttribute('role', 'group');
  }

  function modes(m) {
    mode.replaceChildren();
    if (!m) return;
    for (const x of m.availableModes || []) {
      const o = element('option', { value: x.id }, x.name || x.id);
      if (x.description) o.title = x.description;
      mode.appendChild(o);
    }
    mode.value = m.currentModeId;
  }

  function showCommands() {
    const typed = input.value;
    const match = /^\/(\S*)$/.exec(typed);
    const shown = match ? commands.filter((c) => c.name.startsWith(match[1])) : [];
    commandList.replaceChildren();
    commandList.hidden = shown.length === 0;
    for (const c of shown) {
      const o = element('div', { role: 'option', class: 'command', 'aria-label': `/${c.name}` });
      o.append(element('strong', {}, `/${c.name}`), element('span', {}, c.description ? ` ${c.description}` : ''));
      o.addEventListener('click', () => {
        input.value = `/${c.name} `;
        commandList.hidden = true;
        input.focus();
      });
      commandList.appendChild(o);
    }
  }

  const handlers = {
    clear() {
      log.replaceChildren();
      tools.clear();
      answer = null;
      stop.disabled = true;
    },
    status: (e) => note(e.text, 'status'),
    ready: (e) => {
      folder = e.folder || '';
      modes(e.modes);
      note('Ready. Ask pilotfish.', 'status');
    },
    user(e) {
      answer = null;
      const m = message('user', 'You');
      m.appendChild(element('div', { class: 'body' }, e.text));
      scroll();
    },
    chunk: (e) => chunk(e.text),
    tool: (e) => toolCall(e.update),
    settled,
    permission,
    permissionDone,
    commands(e) {
      commands = e.commands;
      showCommands();
    },
    mode(e) {
      mode.value = e.modeId;
    },
    turn(e) {
      stop.disabled = !e.running;
      if (!e.running) answer = null;
    },
    end(e) {
      if (e.stopReason !== 'end_turn') note(e.stopReason === 'cancelled' ? 'Stopped.' : `Stopped: ${e.stopReason}.`, 'status');
    },
    error: (e) => note(e.message, 'error'),
    exited: (e) => note(`${e.message}. Run "pilotfish: New Chat" or "pilotfish: Restart" to start it again.`, 'error'),
  };

  window.addEventListener('message', (ev) => {
    const h = handlers[ev.data && ev.data.type];
    if (h) h(ev.data);
  });

  function send() {
    const text = input.value;
    if (!text.trim()) return;
    input.value = '';
    commandList.hidden = true;
    vscode.postMessage({ type: 'send', text });
  }
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      send();
    }
  });
  input.addEventListener('input', showCommands);
  $('send').addEventListener('click', send);
  stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
  $('new').addEventListener('click', () => vscode.postMessage({ type: 'newChat' }));
  mode.addEventListener('change', () => vscode.postMessage({ type: 'mode', modeId: mode.value }));
  vscode.postMessage({ type: 'ready' });
})();
