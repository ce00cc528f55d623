// Automation tests: the golden vectors (artifacts/vectors/*.json), run by the core compiled
// inside Unreal with Unreal's toolchain and flags, must reproduce `expected` exactly; plus
// known-answer checks of SHA-256 / trig / number text, and the protocol entry end to end.
//
// Run: UnrealEditor-Cmd <Project>.uproject -ExecCmds="Automation RunTests GCV; Quit"
//      -unattended -nullrhi -nosplash -stdout
//
// Where the vectors are looked for, first found wins:
//   -GcvVectors=<dir> on the command line; the GCV_VECTORS_DIR environment variable;
//   <plugin base dir>/../../artifacts/vectors (the plugin loaded in place from the GCV
//   repository, e.g. through the project's "AdditionalPluginDirectories").

#include "CoreMinimal.h"
#include "GcvUnreal.h"
#include "HAL/FileManager.h"
#include "HAL/PlatformMisc.h"
#include "Interfaces/IPluginManager.h"
#include "Misc/AutomationTest.h"
#include "Misc/CommandLine.h"
#include "Misc/FileHelper.h"
#include "Misc/Parse.h"
#include "Misc/Paths.h"

#if WITH_DEV_AUTOMATION_TESTS

namespace GcvTests
{
TArray<FString> CandidateVectorDirs()
{
	TArray<FString> Dirs;
	FString Dir;
	if (FParse::Value(FCommandLine::Get(), TEXT("GcvVectors="), Dir) && !Dir.IsEmpty())
	{
		Dirs.Add(FPaths::ConvertRelativePathToFull(FPaths::LaunchDir(), Dir));
	}
	Dir = FPlatformMisc::GetEnvironmentVariable(TEXT("GCV_VECTORS_DIR"));
	if (!Dir.IsEmpty())
	{
		Dirs.Add(FPaths::ConvertRelativePathToFull(FPaths::LaunchDir(), Dir));
	}
	const TSharedPtr<IPlugin> Plugin = IPluginManager::Get().FindPlugin(TEXT("GcvBridge"));
	if (Plugin.IsValid())
	{
		Dirs.Add(FPaths::ConvertRelativePathToFull(Plugin->GetBaseDir() / TEXT("../../artifacts/vectors")));
	}
	return Dirs;
}

bool FindVectors(FString& OutDir, TArray<FString>& OutFiles, FString& OutTried)
{
	for (const FString& Dir : CandidateVectorDirs())
	{
		OutTried += (OutTried.IsEmpty() ? TEXT("") : TEXT(", ")) + Dir;
		TArray<FString> Files;
		IFileManager::Get().FindFiles(Files, *(Dir / TEXT("*.json")), /*Files*/ true, /*Directories*/ false);
		if (Files.Num() > 0)
		{
			Files.Sort();
			OutDir = Dir;
			OutFiles = MoveTemp(Files);
			return true;
		}
	}
	return false;
}

bool LoadText(const FString& Path, std::string& Text)
{
	TArray<uint8> Bytes;
	if (!FFileHelper::LoadFileToArray(Bytes, *Path))
	{
		return false;
	}
	Text.assign(reinterpret_cast<const char*>(Bytes.GetData()), static_cast<size_t>(Bytes.Num()));
	return true;
}

// Runs one vector through the core; empty result on success, else what differed.
FString CheckVector(const FString& Path)
{
	std::string Text, Error;
	if (!LoadText(Path, Text))
	{
		return TEXT("cannot read the file");
	}
	gcv::Json Doc;
	if (!gcv::JsonParser::Parse(Text, Doc, Error))
	{
		return GcvUnreal::ToFString("not JSON: " + Error);
	}
	const gcv::Json* RequestJson = Doc.Find("request");
	const gcv::Json* Expected = Doc.Find("expected");
	if (!RequestJson || !Expected)
	{
		return TEXT("no request / expected");
	}
	gcv::RunRequest Request;
	if (!gcv::ReadRunRequest(*RequestJson, Request, Error))
	{
		return GcvUnreal::ToFString("bad request: " + Error);
	}
	std::string Hash;
	if (!gcv::ProgramHash(*Request.program, Hash, Error) || Hash != Request.programHash)
	{
		return GcvUnreal::ToFString("program hash " + Hash + " != " + Request.programHash);
	}
	gcv::Program Program;
	if (!gcv::ReadProgram(*Request.program, Request.player, Program, Error))
	{
		return GcvUnreal::ToFString("bad program: " + Error);
	}
	gcv::Simulation Sim(Program, Request.player);
	Sim.Run(Request.seed);
	gcv::EngineIdentity Engine;
	Engine.name = "ue5-automation";
	gcv::Json Telemetry;
	if (!gcv::BuildTelemetry(Sim, Request, Hash, Engine, gcv::FrameSource(), Telemetry, Error))
	{
		return GcvUnreal::ToFString("telemetry: " + Error);
	}
	std::string Where;
	if (!gcv::JsonEqual(*Expected, gcv::GameplayView(Telemetry), &Where))
	{
		return GcvUnreal::ToFString("expected vs C++: " + Where);
	}
	return FString();
}
} // namespace GcvTests

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvGoldenVectorsTest, "GCV.Parity.GoldenVectors",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvGoldenVectorsTest::RunTest(const FString& Parameters)
{
	FString Dir, Tried;
	TArray<FString> Files;
	if (!GcvTests::FindVectors(Dir, Files, Tried))
	{
		AddError(FString::Printf(TEXT("no golden vectors found; looked in: %s (set GCV_VECTORS_DIR or -GcvVectors=)"),
		                         *Tried));
		return false;
	}
	AddInfo(FString::Printf(TEXT("%d golden vectors in %s"), Files.Num(), *Dir));
	TestEqual(TEXT("number of golden vectors"), Files.Num(), 20);
	int32 Passed = 0;
	for (const FString& Name : Files)
	{
		const FString Failure = GcvTests::CheckVector(Dir / Name);
		if (Failure.IsEmpty())
		{
			++Passed;
		}
		else
		{
			AddError(FString::Printf(TEXT("%s: %s"), *Name, *Failure));
		}
	}
	AddInfo(FString::Printf(TEXT("%d of %d golden vectors match exactly"), Passed, Files.Num()));
	return Passed == Files.Num();
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvCoreKnownAnswersTest, "GCV.Core.KnownAnswers",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvCoreKnownAnswersTest::RunTest(const FString& Parameters)
{
	auto Same = [this](const TCHAR* What, const std::string& Got, const std::string& Want)
	{ TestEqual(What, GcvUnreal::ToFString(Got), GcvUnreal::ToFString(Want)); };
	Same(TEXT("sha256('abc')"), gcv::Sha256::Hex("abc"),
	     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	Same(TEXT("sha256('')"), gcv::Sha256::Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	Same(TEXT("isin(16384)"), std::to_string(gcv::ISin(16384)), "65536");
	Same(TEXT("icos(32768)"), std::to_string(gcv::ICos(32768)), "-65536");
	Same(TEXT("iatan2(0, 0)"), std::to_string(gcv::IAtan2(0, 0)), "49152");
	Same(TEXT("iatan2(-1, -1)"), std::to_string(gcv::IAtan2(-1, -1)), "40960");
	gcv::SplitMix64 Rng(0);
	Same(TEXT("splitmix64(0)"), std::to_string(Rng.NextU64()), "16294208416658607535");
	Same(TEXT("milli 41432"), gcv::MilliText(41432), "41.432");
	std::string Text;
	gcv::CanonicalFloatText("1e-07", Text);
	Same(TEXT("canonical 1e-07"), Text, "1e-7");
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FGcvProtocolTest, "GCV.Protocol.RunRequestFile",
                                 EAutomationTestFlags::EditorContext | EAutomationTestFlags::EngineFilter)

bool FGcvProtocolTest::RunTest(const FString& Parameters)
{
	FString Dir, Tried;
	TArray<FString> Files;
	if (!GcvTests::FindVectors(Dir, Files, Tried))
	{
		AddError(FString::Printf(TEXT("no golden vectors found; looked in: %s"), *Tried));
		return false;
	}
	// The first vector's request, with output_dir pointing into Saved/, through the same
	// entry the commandlet uses, with Unreal's file manager.
	std::string Text, Error;
	if (!TestTrue(TEXT("read the first vector"), GcvTests::LoadText(Dir / Files[0], Text)))
	{
		return false;
	}
	gcv::Json Doc;
	if (!TestTrue(TEXT("parse the first vector"), gcv::JsonParser::Parse(Text, Doc, Error)))
	{
		return false;
	}
	const FString OutDir = FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir() / TEXT("GcvAutomation"));
	IFileManager::Get().MakeDirectory(*OutDir, true);
	gcv::Json Request = *Doc.Find("request");
	Request.Set("output_dir", gcv::Json::MakeString(GcvUnreal::ToUtf8(OutDir)));
	const FString RequestPath = OutDir / TEXT("request.json");
	const std::string RequestText = gcv::ToCompactJson(Request);
	TArray<uint8> Bytes;
	Bytes.Append(reinterpret_cast<const uint8*>(RequestText.data()), static_cast<int32>(RequestText.size()));
	FFileHelper::SaveArrayToFile(Bytes, *RequestPath);

	std::vector<std::string> Lines;
	gcv::RunIO Io;
	Io.out = [&Lines](const std::string& Line) { Lines.push_back(Line); };
	Io.err = [&Lines](const std::string& Line) { Lines.push_back("stderr: " + Line); };
	gcv::EngineIdentity Engine;
	Engine.name = "ue5-automation";
	const int Code = gcv::RunRequestFile(GcvUnreal::ToUtf8(RequestPath), Engine, Io, GcvUnreal::FileOps());
	TestEqual(TEXT("exit code"), Code, 0);
	TestTrue(TEXT("first line is the handshake"), !Lines.empty() && Lines.front().rfind("GCV-HANDSHAKE ", 0) == 0);
	TestTrue(TEXT("last line is GCV-DONE"), !Lines.empty() && Lines.back().rfind("GCV-DONE ", 0) == 0);
	TestTrue(TEXT("telemetry.json written"), IFileManager::Get().FileExists(*(OutDir / TEXT("telemetry.json"))));
	TestFalse(TEXT("no temp file left"), IFileManager::Get().FileExists(*(OutDir / TEXT("telemetry.json.tmp"))));
	return true;
}

#endif // WITH_DEV_AUTOMATION_TESTS
