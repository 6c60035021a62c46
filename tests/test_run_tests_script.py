"""tools/run_tests.sh keeps its logs in a fresh temporary folder (issue 24, finding 14)."""
import re
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "run_tests.sh"


def test_two_runs_get_their_own_log_folders(tmp_path):
    text = SCRIPT.read_text()
    # every log the script writes or reads is under $LOGS (no fixed /tmp/dppca-*.log paths)
    logs = re.findall(r'^\s*count (\S+)|tee (\S+)|(\S+\.log)', text, flags=re.M)
    used = [name for match in logs for name in match if name]
    assert used and all(name.startswith('"$LOGS/') for name in used), used
    assert "/tmp/dppca-" not in text
    # the line that makes $LOGS, run twice as two runs would: two distinct, existing folders
    line = next(s for s in text.splitlines() if s.startswith("LOGS="))
    folders = [subprocess.run(["bash", "-c", f'{line}; echo "$LOGS"'], capture_output=True,
                              text=True, check=True, env={"TMPDIR": str(tmp_path)}).stdout.strip()
               for _ in range(2)]
    assert folders[0] != folders[1]
    assert all(Path(f).is_dir() and Path(f).parent == tmp_path for f in folders)
