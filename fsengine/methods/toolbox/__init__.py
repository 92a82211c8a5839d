"""Reference methods practitioners already use, as selectors of the same contract."""
