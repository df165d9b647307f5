;;; copilot_el.el --- copilot.el against pilotfish, in Emacs run in batch  -*- lexical-binding: t; -*-

;; copilot.el (the real package, carried in tests/fixtures/plugins: 0.2.0 and 0.9.0, the same
;; steps for both) set up as docs/editors.md says, against `pilotfish lsp`:
;;   emacs --batch -l copilot_el.el
;; with PILOTFISH (the binary, given to copilot.el as its server), PLUGIN, FILE (a Python file
;; whose line 2 is `    s = "é" + `), CRLF (the same with CRLF line breaks) and OUT in the
;; environment; PILOTFISH_CONFIG points the server at the scripted model. Emacs in batch runs
;; no command loop, so the steps call the commands a key would run (`copilot-complete`,
;; `copilot-next-completion`, `copilot-accept-completion`, `copilot-panel-complete`) and wait
;; for the server's answers. For each file just opened: the suggestion shown as copilot.el's
;; overlay, the next one cycled to, accepted, and the panel filled. What was seen is written to
;; OUT as JSON; a step that does not happen in time writes its name as the failure.

;;; Code:

;; Emacs 30 ships what copilot.el 0.9.0 needs (jsonrpc, compat, track-changes, editorconfig);
;; Debian's elpa-f (with s and dash), which 0.2.0 also needs, is on the load path: `--batch`
;; skips the user's init file but not the site's start-up, which activates it.
(add-to-list 'load-path (getenv "PLUGIN"))
(require 'copilot)
(require 'json)

(setq copilot-server-executable (getenv "PILOTFISH"))
;; No idle timers in batch: the steps ask for completions themselves.
(setq copilot-idle-delay nil)
;; On as in an interactive Emacs (batch turns it off): the panel sorts its solutions in the
;; region it marks, which is active only with it.
(transient-mark-mode 1)

(defvar pf-results (list (cons 'steps nil) (cons 'files nil) (cons 'emacs emacs-version)))

(defun pf-finish (failure)
  "Write what was seen, with FAILURE (a step's name or nil), and leave Emacs."
  (push (cons 'failure failure) pf-results)
  (setf (alist-get 'steps pf-results) (vconcat (reverse (alist-get 'steps pf-results))))
  (with-temp-file (getenv "OUT")
    (insert (json-encode pf-results)))
  (kill-emacs (if failure 1 0)))

(defun pf-wait (name condition)
  "Wait up to 20 s for CONDITION, reading the server's messages meanwhile; fail as NAME."
  (let ((deadline (+ (float-time) 20)))
    (while (and (not (funcall condition)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall condition)
      (pf-finish name))
    (push name (alist-get 'steps pf-results))))

(defun pf-press (command)
  "Run COMMAND as its key would, interactively.
Emacs in batch tells commands that nothing is called interactively (copilot.el 0.9.0 then
asks for an automatic completion, not an invoked one): `noninteractive' is off for the call."
  (let ((noninteractive nil))
    (call-interactively command)))

(defun pf-lines ()
  "The buffer's lines, as a vector."
  (vconcat (split-string (buffer-substring-no-properties (point-min) (point-max)) "\n")))

(defun pf-file (name path)
  "The steps for the file PATH, recorded under NAME."
  (let ((seen nil))
    (find-file path)
    (push (cons 'eol_type (coding-system-eol-type buffer-file-coding-system)) seen)
    (copilot-mode 1)
    (goto-char (point-min))
    (forward-line 1)
    (end-of-line)
    (pf-press #'copilot-complete)
    (pf-wait (concat name ": the suggestion is shown in the file just opened")
             #'copilot-current-completion)
    (push (cons 'shown (copilot-current-completion)) seen)
    (pf-press #'copilot-next-completion)
    (pf-wait (concat name ": cycling shows the next suggestion")
             (lambda () (equal (copilot-current-completion) "b + a")))
    (push (cons 'cycled (copilot-current-completion)) seen)
    (pf-press #'copilot-accept-completion)
    (push (cons 'lines (pf-lines)) seen)
    (push (cons 'column (current-column)) seen)
    (push (cons 'line (line-number-at-pos)) seen)
    (pf-press #'copilot-panel-complete)
    (pf-wait (concat name ": the panel fills")
             (lambda ()
               (with-current-buffer (get-buffer-create "*copilot-panel*")
                 (string-match-p "End of solutions" (buffer-string)))))
    (push (cons 'panel (with-current-buffer "*copilot-panel*"
                         (buffer-substring-no-properties (point-min) (point-max))))
          seen)
    (set-buffer-modified-p nil)
    (setf (alist-get (intern name) (alist-get 'files pf-results)) seen)))

(condition-case err
    (progn
      (pf-file "lf" (getenv "FILE"))
      (pf-file "crlf" (getenv "CRLF"))
      (pf-finish nil))
  (error (pf-finish (format "error: %S" err))))

;;; copilot_el.el ends here
