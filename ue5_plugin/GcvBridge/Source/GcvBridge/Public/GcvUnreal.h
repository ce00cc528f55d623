// Unreal-side plumbing for the engine-independent core: string conversion, file access
// through Unreal's file manager (wide paths, the launch directory for relative paths) and
// the protocol's output lines.
//
// Protocol lines must reach the runner in every build configuration. Development and
// Debug builds log through UE_LOG, which -stdout mirrors to stdout. Shipping builds (and
// any build with NO_LOGGING) compile UE_LOG out, so there the lines are written to the
// process's stdout directly (the runner passes pipes as the standard handles, which a
// Windows GUI-subsystem game inherits too). Errors always go to stderr as well, so the
// runner sees the offending field there.
#pragma once

#include "CoreMinimal.h"
#include "GcvBridge.h"
#include "HAL/FileManager.h"
#include "Misc/FileHelper.h"
#include "Misc/Paths.h"

#include <cstdio>
#include <string>

THIRD_PARTY_INCLUDES_START
#include "Gcv/Gcv.h"
THIRD_PARTY_INCLUDES_END

namespace GcvUnreal
{
inline FString ToFString(const std::string& Text)
{
	return FString(UTF8_TO_TCHAR(Text.c_str()));
}

inline std::string ToUtf8(const FString& Text)
{
	return std::string(TCHAR_TO_UTF8(*Text));
}

// Unreal sets the working directory to its binaries folder; a relative path in a request
// (or on the command line) means relative to where the process was launched, as it does
// for the harness and python-sim.
inline FString ResolvePath(const std::string& Path)
{
	FString Result = ToFString(Path);
	if (FPaths::IsRelative(Result))
	{
		Result = FPaths::ConvertRelativePathToFull(FPaths::LaunchDir(), Result);
	}
	return Result;
}

inline gcv::FileOps FileOps()
{
	gcv::FileOps Ops;
	Ops.read = [](const std::string& Path, std::string& Text, std::string& Error)
	{
		const FString Full = ResolvePath(Path);
		TArray<uint8> Bytes;
		if (!FFileHelper::LoadFileToArray(Bytes, *Full, FILEREAD_Silent))
		{
			Error = "cannot open " + ToUtf8(Full);
			return false;
		}
		Text.assign(reinterpret_cast<const char*>(Bytes.GetData()), static_cast<size_t>(Bytes.Num()));
		return true;
	};
	Ops.isDirectory = [](const std::string& Path)
	{
		return IFileManager::Get().DirectoryExists(*ResolvePath(Path));
	};
	Ops.writeAtomic = [](const std::string& Dir, const std::string& Name, const std::string& Content, std::string& Error)
	{
		const FString Final = ResolvePath(Dir) / ToFString(Name);
		const FString Temp = Final + TEXT(".tmp");
		TArray<uint8> Bytes;
		Bytes.Append(reinterpret_cast<const uint8*>(Content.data()), static_cast<int32>(Content.size()));
		if (!FFileHelper::SaveArrayToFile(Bytes, *Temp))
		{
			Error = "cannot write " + ToUtf8(Temp);
			return false;
		}
		if (!IFileManager::Get().Move(*Final, *Temp, /*bReplace*/ true, /*bEvenIfReadOnly*/ true))
		{
			IFileManager::Get().Delete(*Temp);
			Error = "cannot rename " + ToUtf8(Temp) + " to " + ToUtf8(Final);
			return false;
		}
		return true;
	};
	return Ops;
}

inline void RawLine(FILE* Stream, const std::string& Line)
{
	std::fputs(Line.c_str(), Stream);
	std::fputc('\n', Stream);
	std::fflush(Stream);
}

inline void Out(const std::string& Line)
{
#if NO_LOGGING
	RawLine(stdout, Line); // Shipping: UE_LOG is compiled out; the runner reads stdout
#else
	UE_LOG(LogGcv, Display, TEXT("%s"), UTF8_TO_TCHAR(Line.c_str()));
	if (GLog)
	{
		GLog->Flush();
	}
#endif
}

inline void Err(const std::string& Line)
{
#if !NO_LOGGING
	UE_LOG(LogGcv, Error, TEXT("%s"), UTF8_TO_TCHAR(Line.c_str()));
#endif
	RawLine(stderr, Line);
#if !NO_LOGGING
	if (GLog)
	{
		GLog->Flush();
	}
#endif
}

inline gcv::RunIO ProtocolIO()
{
	gcv::RunIO Io;
	Io.out = [](const std::string& Line) { Out(Line); };
	Io.err = [](const std::string& Line) { Err(Line); };
	return Io;
}
} // namespace GcvUnreal
