"""The training and evaluation commands, importable so the ``naval-tactics`` command works from an installed
package; ``train.py`` and ``evaluate.py`` at the repository root are thin wrappers with the same flags."""
