"""A pipeline bound to a file in a Git repository: every saved version is a commit, commits made
outside the studio come in as versions, and a change on both sides is shown, never overwritten."""
