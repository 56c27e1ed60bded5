import Foundation

// `make capacity`: counts the AWS calls each operation makes through the functions as
// deployed (moto behind a counting proxy, the fake Google), combines them with the
// published quotas and prices, prints the table and writes docs/perf/capacity.{md,svg}.
let bench = try await CapacityBench()
let measured = try await Measurements.take(bench)
bench.stop()
let report = CapacityReport(measured: measured, model: CapacityModel(measured: measured, traffic: Traffic()))
print(report.markdown)
let directory = CommandLine.arguments.dropFirst().first ?? "docs/perf"
try report.markdown.write(toFile: "\(directory)/capacity.md", atomically: true, encoding: .utf8)
try report.svg.write(toFile: "\(directory)/capacity.svg", atomically: true, encoding: .utf8)
print("wrote \(directory)/capacity.md and \(directory)/capacity.svg")
