#include "GcvBulletField.h"

#include "Camera/CameraActor.h"
#include "Camera/CameraComponent.h"
#include "Components/InstancedStaticMeshComponent.h"
#include "Components/StaticMeshComponent.h"
#include "Engine/StaticMesh.h"
#include "Engine/World.h"
#include "Materials/MaterialInstanceDynamic.h"
#include "Materials/MaterialInterface.h"

THIRD_PARTY_INCLUDES_START
#include "Gcv/Gcv.h"
THIRD_PARTY_INCLUDES_END

namespace
{
// Engine content that exists in every project (cook /Engine/BasicShapes for packaged games).
const TCHAR* SpherePath = TEXT("/Engine/BasicShapes/Sphere.Sphere");
const TCHAR* CubePath = TEXT("/Engine/BasicShapes/Cube.Cube");
const TCHAR* MaterialPath = TEXT("/Engine/BasicShapes/BasicShapeMaterial.BasicShapeMaterial");

constexpr double CmPerUnit = 100.0;
constexpr double CmPerQ16 = CmPerUnit / 65536.0;
constexpr double BulletRadiusUnits = 0.125; // as the Python renderer: 4 px at 32 px per unit
constexpr double BossRadiusUnits = 0.44;
constexpr double CameraDistanceCm = 10000.0;

// gcv/sim/render.py PHASE_COLORS, BOSS, PLAYER, PLAYER_INVULNERABLE, HIT, ARENA.
const FColor PhaseColors[] = {FColor(250, 204, 21), FColor(56, 189, 248), FColor(251, 113, 133),
                              FColor(167, 139, 250), FColor(52, 211, 153), FColor(251, 146, 60)};
const FColor BossColor(236, 72, 153);
const FColor PlayerColor(96, 230, 160);
const FColor InvulnerableColor(250, 250, 250);
const FColor HitColor(255, 70, 70);
const FColor ArenaColor(24, 28, 46);

FVector ToLocal(int64 X, int64 Y, double Depth = 0.0)
{
	return FVector(Depth, static_cast<double>(X) * CmPerQ16, static_cast<double>(Y) * CmPerQ16);
}

FVector SphereScale(double RadiusUnits)
{
	// The engine sphere is 100 cm across: scale 1 = 1 unit diameter.
	return FVector(2.0 * RadiusUnits);
}
} // namespace

AGcvBulletField::AGcvBulletField()
{
	PrimaryActorTick.bCanEverTick = false; // driven by UGcvRunSubsystem, one sim tick per frame
	Root = CreateDefaultSubobject<USceneComponent>(TEXT("Root"));
	RootComponent = Root;
}

UMaterialInstanceDynamic* AGcvBulletField::MakeMaterial(const FLinearColor& Color)
{
	UMaterialInstanceDynamic* Material = UMaterialInstanceDynamic::Create(BaseMaterial, this);
	Material->SetVectorParameterValue(TEXT("Color"), Color);
	return Material;
}

UStaticMeshComponent* AGcvBulletField::MakeMarker(const TCHAR* Name, UStaticMesh* Mesh, const FLinearColor& Color)
{
	UStaticMeshComponent* Marker = NewObject<UStaticMeshComponent>(this, Name);
	Marker->SetupAttachment(Root);
	Marker->SetMobility(EComponentMobility::Movable);
	Marker->SetStaticMesh(Mesh);
	Marker->SetCollisionEnabled(ECollisionEnabled::NoCollision);
	Marker->SetCastShadow(false);
	Marker->SetMaterial(0, MakeMaterial(Color));
	Marker->RegisterComponent();
	return Marker;
}

ACameraActor* AGcvBulletField::Setup(const gcv::Program& Program)
{
	SphereMesh = LoadObject<UStaticMesh>(nullptr, SpherePath);
	UStaticMesh* CubeMesh = LoadObject<UStaticMesh>(nullptr, CubePath);
	BaseMaterial = LoadObject<UMaterialInterface>(nullptr, MaterialPath);

	const int32 PhaseCount = static_cast<int32>(Program.phases.size());
	PhaseBullets.Reset();
	VisibleCount.Init(0, PhaseCount);
	Scratch.SetNum(PhaseCount);
	for (int32 Phase = 0; Phase < PhaseCount; ++Phase)
	{
		const FName Name(*FString::Printf(TEXT("Bullets_Phase%d"), Phase + 1));
		UInstancedStaticMeshComponent* Bullets = NewObject<UInstancedStaticMeshComponent>(this, Name);
		Bullets->SetupAttachment(Root);
		Bullets->SetMobility(EComponentMobility::Movable);
		Bullets->SetStaticMesh(SphereMesh);
		Bullets->SetCollisionEnabled(ECollisionEnabled::NoCollision);
		Bullets->SetCastShadow(false);
		Bullets->SetMaterial(0, MakeMaterial(FLinearColor(PhaseColors[static_cast<size_t>(Phase) % UE_ARRAY_COUNT(PhaseColors)])));
		Bullets->RegisterComponent();
		PhaseBullets.Add(Bullets);
	}

	const double WidthCm = 2.0 * static_cast<double>(Program.halfWidth) * CmPerQ16;
	const double HeightCm = 2.0 * static_cast<double>(Program.halfHeight) * CmPerQ16;
	Backdrop = MakeMarker(TEXT("Arena"), CubeMesh, FLinearColor(ArenaColor));
	Backdrop->SetRelativeLocation(FVector(200.0, 0.0, 0.0)); // behind the bullets, seen from the camera
	Backdrop->SetRelativeScale3D(FVector(0.01, WidthCm / 100.0, HeightCm / 100.0));

	BossMarker = MakeMarker(TEXT("Boss"), SphereMesh, FLinearColor(BossColor));
	BossMarker->SetRelativeLocation(ToLocal(Program.bossX, Program.bossY));
	BossMarker->SetRelativeScale3D(SphereScale(BossRadiusUnits));

	PlayerMarker = MakeMarker(TEXT("Player"), SphereMesh, FLinearColor(PlayerColor));
	PlayerMaterial = Cast<UMaterialInstanceDynamic>(PlayerMarker->GetMaterial(0));
	const double HitRadiusUnits = static_cast<double>(Program.hitRadius) / 65536.0;
	PlayerMarker->SetRelativeScale3D(SphereScale(FMath::Max(HitRadiusUnits, 0.12)));

	// Orthographic camera looking along +X at the arena (screen right = +Y, up = +Z).
	FActorSpawnParameters Params;
	Params.SpawnCollisionHandlingOverride = ESpawnActorCollisionHandlingMethod::AlwaysSpawn;
	const FVector CameraLocation = GetActorLocation() - FVector(CameraDistanceCm, 0.0, 0.0);
	ViewCamera = GetWorld()->SpawnActor<ACameraActor>(CameraLocation, FRotator::ZeroRotator, Params);
	if (ViewCamera)
	{
		UCameraComponent* Camera = ViewCamera->GetCameraComponent();
		Camera->SetProjectionMode(ECameraProjectionMode::Orthographic);
		Camera->SetConstraintAspectRatio(false);
		// Fit the arena in a 16:9 view with a small margin.
		const double FitWidth = FMath::Max(WidthCm, HeightCm * 16.0 / 9.0) * 1.08;
		Camera->SetOrthoWidth(static_cast<float>(FitWidth));
	}
	return ViewCamera;
}

void AGcvBulletField::Draw(const gcv::Simulation& Sim)
{
	const int32 PhaseCount = PhaseBullets.Num();
	for (TArray<FTransform>& List : Scratch)
	{
		List.Reset();
	}
	const FVector BulletScale = SphereScale(BulletRadiusUnits);
	const size_t Count = Sim.X.size();
	for (size_t I = 0; I < Count; ++I)
	{
		const int32 Phase = static_cast<int32>(Sim.PH[I]);
		if (Phase >= 0 && Phase < PhaseCount)
		{
			Scratch[Phase].Emplace(FRotator::ZeroRotator, ToLocal(Sim.X[I], Sim.Y[I]), BulletScale);
		}
	}
	const FTransform Parked(FRotator::ZeroRotator, FVector::ZeroVector, FVector::ZeroVector);
	for (int32 Phase = 0; Phase < PhaseCount; ++Phase)
	{
		UInstancedStaticMeshComponent* Bullets = PhaseBullets[Phase];
		TArray<FTransform>& Transforms = Scratch[Phase];
		const int32 Needed = Transforms.Num();
		// Grow (never shrink) the instance pool.
		for (int32 Existing = Bullets->GetInstanceCount(); Existing < Needed; ++Existing)
		{
			Bullets->AddInstance(Parked);
		}
		// Park the instances that showed a bullet last frame and do not now.
		const int32 Previously = VisibleCount[Phase];
		for (int32 I = Needed; I < Previously; ++I)
		{
			Transforms.Add(Parked);
		}
		if (Transforms.Num() > 0)
		{
			Bullets->BatchUpdateInstancesTransforms(0, Transforms, /*bWorldSpace*/ false,
			                                        /*bMarkRenderStateDirty*/ true, /*bTeleport*/ true);
		}
		VisibleCount[Phase] = Needed;
	}

	PlayerMarker->SetRelativeLocation(ToLocal(Sim.playerX(), Sim.playerY()));
	const int64 LastTick = Sim.tick() - 1;
	const int32 ColorState = Sim.hitThisTick() ? 2 : (LastTick < Sim.invulnUntil() ? 1 : 0);
	if (ColorState != PlayerColorState && PlayerMaterial)
	{
		const FColor Color = ColorState == 2 ? HitColor : (ColorState == 1 ? InvulnerableColor : PlayerColor);
		PlayerMaterial->SetVectorParameterValue(TEXT("Color"), FLinearColor(Color));
		PlayerColorState = ColorState;
	}
}
