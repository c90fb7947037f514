"""Stand-alone developer tools that inspect Kiln's output.

They share no code with the compiler: ``amdgcn_waits`` checks the
``s_waitcnt vmcnt`` waits of final AMDGCN assembly by simulating the
hardware counter (``python3 -m kiln.tools.amdgcn_waits FILE.s``).
"""
