// Line framing; see JSONLineDecoder.swift.
