// Y4M streams: see Y4MReader.swift / Y4MWriter.swift
